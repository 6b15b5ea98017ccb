-- Imbalance per step: the highest rank's peak over the median rank's (memlens summary DIR --step S
-- prints the same figure), with the rank that holds the highest.
WITH per_rank AS (
    SELECT step, rank, MAX(peak_active_bytes) AS peak FROM snapshots GROUP BY step, rank
), per_step AS (
    SELECT step, COUNT(*) AS ranks, MAX(peak) AS max_peak,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY peak) AS median_peak
    FROM per_rank GROUP BY step
)
SELECT s.step, s.ranks, s.max_peak, s.median_peak, s.max_peak / s.median_peak AS imbalance,
       MIN(p.rank) AS highest_rank
FROM per_step s
JOIN per_rank p ON p.step = s.step AND p.peak = s.max_peak
GROUP BY s.step, s.ranks, s.max_peak, s.median_peak
ORDER BY s.step;
