-- The rank × step heatmap: each rank's peak at each step it dumped (its busiest device).
SELECT rank, step,
       MAX(peak_active_bytes) AS peak_active_bytes,
       MAX(peak_reserved_bytes) AS peak_reserved_bytes
FROM snapshots
GROUP BY rank, step
ORDER BY step, rank;
