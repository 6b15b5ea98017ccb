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
