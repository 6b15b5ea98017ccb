-- Ranks that ran out of memory, and what they asked for: each `oom` entry with the bytes requested
-- and the bytes the device still had free (cudaMemGetInfo at the failure).
SELECT s.rank, s.step, s.file, e.device, e.seq, e.size AS requested_bytes, e.addr AS device_free_bytes, e.time_us
FROM snapshots s
JOIN events e ON e.rank = s.rank AND e.step = s.step AND e.file = s.file AND e.device = s.device
WHERE s.oom_count > 0 AND e.action = 'oom'
ORDER BY s.rank, s.step, e.seq;
