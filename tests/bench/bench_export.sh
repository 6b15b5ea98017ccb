#!/usr/bin/env bash
# `memlens export --parquet` measured two ways:
# - the 1 GB / 12 M-entry long run: the export's time against a cold `summary` and Python's
#   pickle.load of the same file in the same run, its peak RSS, and the dataset's size (targets:
#   at most 2x the cold summary, at most half the pickle);
# - a fleet of 1,000 ranks x 10 dumps (tests/tools/make_fleet.py, cut from the 1,000-step run every
#   100 steps, 8,000 entries per dump, an outlier, an OOM and leaks planted): files and MB per
#   second on one core (taskset) and on every core (one shard per core, as an array job runs it),
#   the dataset's size, and DuckDB's time for each shipped query (docs/fleet) over it.
# Usage: bench_export.sh BUILD DIR
set -euo pipefail
build=$1
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
tools=$here/../tools
docs=$here/../../docs/fleet
seconds() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
ratio() { python3 -c "print(round($1 / $2, 2))"; }

long=$dir/long_12m.pickle
echo "== export: $(du -h "$long" | cut -f1) $long"
cat "$long" >/dev/null
rm -rf "$dir/export_long"
read -r summary summary_rss < <(seconds "$build/bin/memlens" summary "$long" --no-cache)
read -r export export_rss < <(seconds "$build/bin/memlens" export "$long" --parquet "$dir/export_long" --no-cache)
read -r py py_rss < <(seconds python3 -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$long")
size=$(du -sb "$dir/export_long" | cut -f1)
pickle=$(stat -c %s "$long")
echo "export --parquet (cold): ${export} s = $(ratio "$export" "$summary") x the cold summary (${summary} s; target <= 2), $(ratio "$py" "$export") x faster than pickle.load (${py} s)"
echo "peak RSS: export $((export_rss / 1024)) MiB, summary $((summary_rss / 1024)) MiB"
echo "dataset: $((size / 1000000)) MB = $(ratio "$size" "$pickle") x the pickle (target <= 0.5)"

fleet=$dir/fleet_1000
if [ ! -d "$fleet" ]; then
  rm -rf "$fleet.tmp"
  python3 "$tools/make_fleet.py" "$dir/long_1000.pickle" "$fleet.tmp" --ranks 1000 --every 100 --window 8000 --dumps 10 >"$dir/fleet_1000.json"
  mv "$fleet.tmp" "$fleet"
fi
files=$(find "$fleet" -name '*.pickle' | wc -l)
fleet_bytes=$(du -sb "$fleet" | cut -f1)
echo "== fleet: $files dumps of 1,000 ranks, $((fleet_bytes / 1000000)) MB"
find "$fleet" -name '*.pickle' -exec cat {} + >/dev/null
cores=$(nproc)
rm -rf "$dir/fleet_one"
start=$(date +%s.%N)
taskset -c 0 "$build/bin/memlens" export "$fleet" --parquet "$dir/fleet_one" --shard 1/10 --no-cache >/dev/null
one=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
one_files=$(find "$dir/fleet_one" -name snapshots.parquet | wc -l)
echo "one core: $one_files dumps in $(printf %.1f "$one") s = $(python3 -c "print(round($one_files / $one, 1))") dumps/s, $(python3 -c "print(round($fleet_bytes / $files * $one_files / 1e6 / $one, 1))") MB/s"
rm -rf "$dir/fleet_dataset"
start=$(date +%s.%N)
for i in $(seq 1 "$cores"); do
  "$build/bin/memlens" export "$fleet" --parquet "$dir/fleet_dataset" --shard "$i/$cores" --no-cache >/dev/null &
done
wait
all=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
dataset=$(du -sb "$dir/fleet_dataset" | cut -f1)
echo "$cores cores, one shard each: $files dumps in $(printf %.1f "$all") s = $(python3 -c "print(round($files / $all, 1))") dumps/s, $(python3 -c "print(round($fleet_bytes / 1e6 / $all, 1))") MB/s"
echo "dataset: $((dataset / 1000000)) MB = $(ratio "$dataset" "$fleet_bytes") x the dumps"
work=$build/fleet-duckdb
if command -v node >/dev/null && command -v npm >/dev/null; then
  mkdir -p "$work"
  cp "$here/../fleet/package.json" "$here/../fleet/duckdb_run.mjs" "$work/"
  [ -d "$work/node_modules/@duckdb/node-api" ] || (cd "$work" && npm install --no-audit --no-fund --silent)
  queries=()
  for q in peak_per_rank_step growing_ranks top_sites_at_peak imbalance_per_step oom_ranks; do queries+=("$q=$docs/$q.sql"); done
  (cd "$work" && DUCKDB_TIMES=1 node duckdb_run.mjs "$dir/fleet_dataset" "$docs/duckdb_views.sql" "${queries[@]}") |
    python3 -c "import json,sys; [print(f'DuckDB {k}: {v[\"ms\"]} ms, {v[\"rows\"]} rows') for k, v in json.load(sys.stdin).items()]"
else
  echo "node or npm missing: DuckDB's query times not measured"
fi
