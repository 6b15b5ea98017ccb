#!/usr/bin/env bash
# Generates the ~1 GB / 12 M-entry snapshot once (in $BENCH_DIR, default /tmp/memlens-bench)
# and prints load figures for memlens and, for comparison, CPython's pickle.load.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
dir=${BENCH_DIR:-/tmp/memlens-bench}
mkdir -p "$dir"
big=$dir/large_12m.pickle
if [ ! -f "$big" ]; then
  python3 "$here/../tools/make_large_snapshot.py" "$here/../../../shared/corpus/snapshots/gpt2_fp32_adamw/snapshot.pickle" "$big" --entries 12000000
fi
echo "== $(du -h "$big" | cut -f1) $big"
echo "-- bench_load (stages)"
"$build/bin/bench_load" "$big"
echo "-- bench_timeline (GUI, offscreen)"
"$build/bin/bench_timeline" "$big"
echo "-- memlens summary (whole command)"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$build/bin/memlens" summary "$big" > /dev/null
echo "-- python3 pickle.load (same file)"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" python3 -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$big"
trace=$dir/large_trace.json
if [ ! -f "$trace" ]; then
  python3 "$here/../tools/make_large_trace.py" "$here/../../../shared/corpus/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz" "$trace"
fi
echo "== $(du -h "$trace" | cut -f1) $trace (profiler trace)"
start=$(date +%s.%N)
/usr/bin/time -f "memlens summary: wall %e s, peak RSS %M KiB" "$build/bin/memlens" summary "$trace" > /dev/null
end=$(date +%s.%N)
python3 -c "import os,sys; print('throughput: %.0f MB/s' % (os.path.getsize(sys.argv[1]) / 1e6 / (float(sys.argv[3]) - float(sys.argv[2]))))" "$trace" "$start" "$end"
exit 0
