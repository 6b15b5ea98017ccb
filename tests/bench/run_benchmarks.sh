#!/usr/bin/env bash
# Generates two ~1 GB / 12 M-entry snapshots once (in $BENCH_DIR, default /tmp/memlens-bench)
# and prints load and timeline figures for memlens and, for comparison, CPython's pickle.load
# of the same file in the same run:
#   long_12m.pickle   a long run: ~4,000 steps with their own forward / backward / optimizer
#                     phases (~20,000 phases) and varying sequence lengths (make_long_run.py)
#   large_12m.pickle  the 3-step GPT-2 run repeated: a handful of phases (make_large_snapshot.py)
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../corpus
dir=${BENCH_DIR:-/tmp/memlens-bench}
mkdir -p "$dir"
long=$dir/long_12m.pickle
tiled=$dir/large_12m.pickle
[ -f "$long" ] || python3 "$here/../tools/make_long_run.py" "$corpus/snapshots/frag_varlen_gpt2/snapshot.pickle.zst" "$long" --entries 12000000
[ -f "$tiled" ] || python3 "$here/../tools/make_large_snapshot.py" "$corpus/snapshots/gpt2_fp32_adamw/snapshot.pickle" "$tiled" --entries 12000000

echo "== the estimator"
"$build/bin/bench_estimate"
/usr/bin/time -f "memlens estimate --model tinyllama-1.1b --seq 1024 --batch 1048576: %e s" "$build/bin/memlens" estimate --model tinyllama-1.1b --seq 1024 --batch 1048576 >/dev/null
/usr/bin/time -f "memlens advise (the corpus OOM): %e s" "$build/bin/memlens" advise "$corpus/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle" --no-cache >/dev/null

seconds() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
# The X stopwatch (tests/bench/x_stopwatch.cpp) needs libxcb's headers and xvfb-run; without
# them the GUI's drawn-frame figures are left out.
stopwatch=
if command -v xvfb-run > /dev/null && c++ -O2 -std=c++20 -o "$dir/x_stopwatch" "$here/x_stopwatch.cpp" -lxcb 2> /dev/null; then
  stopwatch=$dir/x_stopwatch
fi
# The snapshot cache lives in a directory of the benchmark's own, emptied first.
export XDG_CACHE_HOME=$dir/cache
rm -rf "$XDG_CACHE_HOME"
for big in "$long" "$tiled"; do
  echo "== $(du -h "$big" | cut -f1) $big"
  # Every timing below reads the file from the page cache, as pickle.load's does: the first
  # one must not also pay for the disk.
  cat "$big" > /dev/null
  echo "-- bench_load (stages)"
  "$build/bin/bench_load" "$big"
  read -r ours ours_rss < <(seconds "$build/bin/memlens" summary "$big" --no-cache)
  "$build/bin/memlens" summary "$big" > /dev/null # writes the cache entry
  read -r warm warm_rss < <(seconds "$build/bin/memlens" summary "$big")
  read -r rwarm rwarm_rss < <(seconds env QT_QPA_PLATFORM=offscreen "$build/bin/memlens" render "$big" --view timeline -o "$dir/timeline.png")
  read -r py py_rss < <(seconds python3 -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$big")
  read -r render render_rss < <(seconds env QT_QPA_PLATFORM=offscreen "$build/bin/memlens" render "$big" --view timeline --no-cache -o "$dir/timeline.png")
  size_kib=$(( $(stat -c %s "$big") / 1024 ))
  echo "memlens summary (cold, --no-cache): ${ours} s, peak RSS $((ours_rss / 1024)) MiB ($(python3 -c "print(round($ours_rss / $size_kib, 2))") x the file)"
  echo "memlens summary (from the cache): ${warm} s, peak RSS $((warm_rss / 1024)) MiB, $(python3 -c "print(round($py / $warm, 1))") x faster than pickle.load"
  echo "render --view timeline from the cache: ${rwarm} s"
  echo "python3 pickle.load: ${py} s, peak RSS $((py_rss / 1024)) MiB"
  echo "cold summary is $(python3 -c "print(round($py / $ours, 1))")x faster than pickle.load"
  echo "render --view timeline (open to first complete frame, written): ${render} s = $(python3 -c "print(round($render / $py, 2))") x pickle.load"
  # Target: a replay through the allocator model costs at most 2x the cold summary.
  read -r replay replay_rss < <(seconds "$build/bin/memlens" replay "$big" --no-cache)
  read -r whatif whatif_rss < <(seconds "$build/bin/memlens" replay "$big" --no-cache --alloc-conf expandable_segments:True)
  echo "memlens replay (cold, --no-cache): ${replay} s = $(python3 -c "print(round($replay / $ours, 2))") x the cold summary (target <= 2); with expandable_segments:True ${whatif} s, peak RSS $((whatif_rss / 1024)) MiB"
  echo "-- bench_timeline (GUI, offscreen)"
  "$build/bin/bench_timeline" "$big"
  # A reopen, three times (the first after a cold open also pays for the kernel finding huge
  # pages); where its time goes is printed by stage.
  for i in 1 2 3; do "$build/bin/bench_timeline" "$big" --cache; done | tee "$dir/reopen.txt"
  echo "reopen to the first timeline frame, median of 3: $(grep -o 'frame: [0-9.]*' "$dir/reopen.txt" | cut -d' ' -f2 | sort -n | sed -n 2p) s (target: under 1 s)"
  # The same, timed to the pixels drawn: the real window on a virtual X display, launched on a
  # session that opens the timeline, and a stopwatch grabbing the screen until the bands show.
  if [ -n "$stopwatch" ]; then
    session=$dir/timeline.memlens
    printf '{"memlens_session":1,"snapshot":{"path":"%s"},"page":"timeline"}' "$big" > "$session"
    xtime() { xvfb-run -a -s "-screen 0 1600x900x24" "$stopwatch" 8 120 "$build/bin/memlens" --theme light "$@" "$session" 2>/dev/null || echo "timeout"; }
    warm_gui=$(for i in 1 2 3; do xtime; done | tr '\n' ' ')
    cold_gui=$(for i in 1 2 3; do xtime --no-cache; done | tr '\n' ' ')
    echo "GUI launched on the file to the drawn timeline (X stopwatch, 3 runs): from the cache ${warm_gui}s; cold ${cold_gui}s (targets: 1 s and 3 s)"
  fi
done

trace=$dir/large_trace.json
[ -f "$trace" ] || python3 "$here/../tools/make_large_trace.py" "$corpus/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz" "$trace"
echo "== $(du -h "$trace" | cut -f1) $trace (profiler trace)"
cat "$trace" > /dev/null # from the page cache, as the targets say
"$build/bin/bench_load" "$trace" | sed -n 3p | sed 's/^/reader (simdjson): /'
start=$(date +%s.%N)
/usr/bin/time -f "memlens summary --no-cache: wall %e s, peak RSS %M KiB" "$build/bin/memlens" summary "$trace" --no-cache > /dev/null
end=$(date +%s.%N)
python3 -c "import os,sys; print('throughput: %.0f MB/s (target: 600)' % (os.path.getsize(sys.argv[1]) / 1e6 / (float(sys.argv[3]) - float(sys.argv[2]))))" "$trace" "$start" "$end"
# Against Python's json.load of the same file, in the same run (target: 25 times faster).
python3 - "$trace" "$start" "$end" <<'PY'
import json, sys, time
t = time.time()
json.load(open(sys.argv[1]))
python = time.time() - t
memlens = float(sys.argv[3]) - float(sys.argv[2])
print('json.load: %.1f s; memlens summary is %.0f times faster (target: 25)' % (python, python / memlens))
PY

"$here/bench_stitch.sh" "$build" "$dir"
"$here/bench_export.sh" "$build" "$dir"
exit 0
