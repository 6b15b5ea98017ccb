#!/usr/bin/env bash
# The README's pictures, drawn again from the corpus by the window's own code (`memlens render`,
# and the rank overview's heatmap as tst_rankviews shows it), so they follow the window:
#   tests/tools/readme_images.sh [BUILD] [OUT]   (make screenshots; OUT: resources/screenshots)
# Every input is made here from tests/corpus with the tools beside this script.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${2:-$root/resources/screenshots}
corpus=$root/tests/corpus/snapshots
memlens=$build/bin/memlens
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export QT_QPA_PLATFORM=offscreen
draw() { # NAME FILE SIZE ARGS...: one picture, light theme, no cache
  local name=$1 file=$2 size=$3
  shift 3
  "$memlens" render "$file" --theme light --no-cache --size "$size" -o "$out/$name.png" "$@"
  echo "$out/$name.png"
}
oom=$corpus/oom_gpt2_medium_6gib/oom_snapshot.pickle
gpt2=$corpus/gpt2_fp32_adamw/snapshot.pickle
varlen=$corpus/frag_varlen_gpt2/snapshot.pickle.zst

draw timeline "$root/resources/examples/gpt2_fp32_adamw.pickle.zst" 1400x820 --view timeline
draw summary-oom-fixes "$oom" 1400x900 --view summary
draw estimator-inferred-oom "$oom" 1400x800 --view estimator
draw layers-gpt2 "$gpt2" 1400x700 --view layers
draw segments-over-time-predicted "$varlen" 1400x900 --view segment-timeline --what-if expandable_segments:True

# Users' files: torch's marks only, and none at all.
python3 "$here/make_user_variants.py" "$varlen" "$work/torch-marks.pickle" --marks torch > /dev/null
draw steps-torch-marks-only "$work/torch-marks.pickle" 1024x700 --view steps
python3 "$here/make_user_variants.py" "$gpt2" "$work/no-marks.pickle" --marks none > /dev/null
draw timeline-steps-without-marks "$work/no-marks.pickle" 1024x600 --view timeline

# A rank's dumps, with another run's (GPT-2 medium's after-OOM dump) left among them.
python3 "$here/cut_dumps.py" "$varlen" "$work/dumps" --every 5 --window 6000 --rank 0 > /dev/null
mkdir -p "$work/dumps/iteration_99"
cp "$corpus/oom_gpt2_medium_6gib/after_oom_snapshot.pickle" "$work/dumps/iteration_99/rank0_memory_snapshot.pickle"
draw stitch-another-run-left-out "$work/dumps" 1024x700 --rank 0 --view summary

# The rank x step heatmap: the window as tst_rankviews drives it (three ranks, an OOM, an outlier).
MEMLENS_SHOTS=$work "$build/bin/tst_rankviews" watchHeatmapAndStitchedRun > /dev/null
cp "$work/rank-step-heatmap.png" "$out/rank-step-heatmap.png"
echo "$out/rank-step-heatmap.png"
