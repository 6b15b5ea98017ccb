#!/usr/bin/env bash
# A 1,000-step run (make_long_run.py, ~3 M entries) cut into the dumps a job writes every 100
# steps (cut_dumps.py): once with windows that overlap (500,000 entries, ~160 steps) and once
# with gaps (150,000 entries). Each is stitched (`summary DIR --rank 0 --stitch`), cold and from
# the snapshot cache, against `summary` of the complete file and pickle.load of it.
set -euo pipefail
build=$1
dir=$2
corpus=$(cd "$(dirname "$0")/../corpus" && pwd)
tools=$(cd "$(dirname "$0")/../tools" && pwd)
run=$dir/long_1000.pickle
# Made again, with the dumps cut from it, when the generator changed since.
if ! { [ -f "$run" ] && [ "$run" -nt "$tools/make_long_run.py" ] && [ "$run" -nt "$tools/snapshot_facts.py" ]; }; then
  python3 "$tools/make_long_run.py" "$corpus/snapshots/frag_varlen_gpt2/snapshot.pickle.zst" "$run" --steps 1000 >/dev/null
  rm -rf "$dir"/dumps_overlapping "$dir"/dumps_gapped
fi
for kind in overlapping:500000 gapped:150000; do
  name=${kind%%:*}
  [ -d "$dir/dumps_$name" ] || python3 "$tools/cut_dumps.py" "$run" "$dir/dumps_$name" --every 100 --window "${kind##*:}" >/dev/null
done
seconds() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
cat "$run" "$dir"/dumps_*/*/* > /dev/null
echo "== stitching: $(du -h "$run" | cut -f1) 1,000-step run, dumps every 100 steps"
read -r whole whole_rss < <(seconds "$build/bin/memlens" summary "$run" --no-cache)
read -r py py_rss < <(seconds python3 -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$run")
echo "summary of the complete file (cold): ${whole} s, peak RSS $((whole_rss / 1024)) MiB; pickle.load ${py} s, $((py_rss / 1024)) MiB"
for name in overlapping gapped; do
  folder=$dir/dumps_$name
  dumps=$(find "$folder" -name '*.pickle' | wc -l)
  size=$(du -sh "$folder" | cut -f1)
  read -r cold cold_rss < <(seconds "$build/bin/memlens" summary "$folder" --rank 0 --stitch --no-cache)
  "$build/bin/memlens" summary "$folder" --rank 0 --stitch >/dev/null # fills the cache
  read -r warm warm_rss < <(seconds "$build/bin/memlens" summary "$folder" --rank 0 --stitch)
  gaps=$("$build/bin/memlens" summary "$folder" --rank 0 --stitch --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['gaps']))")
  echo "$name: $dumps dumps ($size), $gaps gaps; stitched cold ${cold} s, peak RSS $((cold_rss / 1024)) MiB ($(python3 -c "print(round($cold / $whole, 2))") x the complete file's summary); from the cache ${warm} s, $((warm_rss / 1024)) MiB"
done
