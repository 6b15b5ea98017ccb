-- Leaks across the fleet: ranks whose peak grew from their first dump to their last by more than
-- the median rank's growth plus 1 % of their first peak (a whole fleet growing together is the
-- workload, not a leak).
WITH per_dump AS (
    SELECT rank, step, MAX(peak_active_bytes) AS peak FROM snapshots GROUP BY rank, step
), ends AS (
    SELECT rank, MIN(step) AS first_step, MAX(step) AS last_step FROM per_dump GROUP BY rank
), growth AS (
    SELECT e.rank, e.first_step, e.last_step, f.peak AS first_peak, l.peak AS last_peak, l.peak - f.peak AS growth_bytes
    FROM ends e
    JOIN per_dump f ON f.rank = e.rank AND f.step = e.first_step
    JOIN per_dump l ON l.rank = e.rank AND l.step = e.last_step
), fleet AS (
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY growth_bytes) AS median_growth FROM growth
)
SELECT g.rank, g.first_step, g.last_step, g.first_peak, g.last_peak, g.growth_bytes,
       g.growth_bytes - fleet.median_growth AS excess_growth_bytes
FROM growth g CROSS JOIN fleet
WHERE g.growth_bytes - fleet.median_growth > 0.01 * g.first_peak
ORDER BY excess_growth_bytes DESC, g.rank;
