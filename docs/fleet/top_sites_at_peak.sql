-- Where the memory is at the peak, fleet-wide: the blocks live at each rank's peak in its latest
-- dump, by the site that allocated them (the innermost frame of the user's code).
WITH latest AS (
    SELECT rank, MAX(step) AS step FROM snapshots GROUP BY rank
)
SELECT COALESCE(l.site, '(no site)') AS site,
       SUM(l.size) AS bytes,
       COUNT(*) AS blocks,
       COUNT(DISTINCT l.rank) AS ranks
FROM live_at_peak l
JOIN latest ON latest.rank = l.rank AND latest.step = l.step
GROUP BY COALESCE(l.site, '(no site)')
ORDER BY bytes DESC, site
LIMIT 20;
