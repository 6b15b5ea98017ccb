#!/usr/bin/env bash
# `memlens export --parquet` read back by an independent reader: DuckDB (npm @duckdb/node-api,
# pinned in package.json, installed once into the build folder). A fleet of 6 ranks × 3 dumps is
# cut from a corpus run (tests/tools/make_fleet.py: an outlier, a leak, an OOM planted), exported
# whole and as shards 1/2 + 2/2 running at once, and DuckDB's reading of every table and of the
# shipped queries (docs/fleet/) is compared with `memlens summary` on the same files
# (fleet_compare.py). Skipped (77) without node and npm.
# Usage: fleet_test.sh WORKDIR MEMLENS SOURCE_SNAPSHOT
set -euo pipefail
work=$1 memlens=$2 source=$3
here=$(cd "$(dirname "$0")" && pwd)
docs=$here/../../docs/fleet
tools=$here/../tools
command -v node >/dev/null && command -v npm >/dev/null || { echo "node or npm missing: skipped"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work"
cp "$here/package.json" "$here/duckdb_run.mjs" "$work/"
if [ ! -d "$work/node_modules/@duckdb/node-api" ]; then
  (cd "$work" && timeout 600 npm install --no-audit --no-fund --silent) || fail "npm install failed"
fi
run=$(mktemp -d "$work/run.XXXXXX")
[ -n "${KEEP_RUN:-}" ] || trap 'rm -rf "$run"' EXIT

python3 "$tools/make_fleet.py" "$source" "$run/fleet" --ranks 6 --every 5 --window 3000 --dumps 3 >"$run/manifest.json"
inputs=$(find "$run/fleet" -name '*.pickle' | wc -l)

# The whole folder, then its two shards at once into another folder: the same bytes.
"$memlens" export "$run/fleet" --parquet "$run/whole" --json --no-cache >"$run/whole.json"
"$memlens" export "$run/fleet" --parquet "$run/sharded" --shard 1/2 --no-cache >"$run/shard1.txt" &
first=$!
"$memlens" export "$run/fleet" --parquet "$run/sharded" --shard 2/2 --no-cache >"$run/shard2.txt" &
second=$!
wait $first && wait $second || fail "a shard's export failed"
grep -q "shard 1/2 of $inputs" "$run/shard1.txt" || fail "shard 1/2 says: $(tail -1 "$run/shard1.txt")"
diff -r "$run/whole" "$run/sharded" >/dev/null || fail "shards 1/2 + 2/2 differ from the whole export"
# Again into the same folder: the same files, no temporaries left.
"$memlens" export "$run/fleet" --parquet "$run/whole" --no-cache >/dev/null || fail "the second export failed"
[ "$(find "$run/whole" -type f | wc -l)" = $((inputs * 7)) ] || fail "$(find "$run/whole" -type f | wc -l) files for $inputs inputs × 7 tables"
[ -z "$(find "$run/whole" -name '.*')" ] || fail "temporary files left: $(find "$run/whole" -name '.*')"

# memlens's own figures on the same files.
python3 - "$memlens" "$run/fleet" "$run/manifest.json" >"$run/facts.json" <<'PY'
import json, os, subprocess, sys
memlens, fleet, manifest = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
def ask(*args):
    return json.loads(subprocess.run([memlens, 'summary', *args, '--json', '--no-cache'], check=True, capture_output=True, text=True).stdout)
summaries = {os.path.relpath(d['file'], fleet): ask(d['file'], '--top', '100') for d in manifest['dumps']}
overviews = [ask(fleet, '--step', str(s)) for s in sorted({d['step'] for d in manifest['dumps']})]
json.dump({'manifest': manifest, 'summaries': summaries, 'overviews': overviews}, sys.stdout)
PY

checks=()
for table in snapshots steps events stacks live_at_peak pools layers; do
  checks+=("describe_$table=DESCRIBE SELECT * FROM $table")
done
checks+=(
  "snapshots=SELECT * FROM snapshots"
  "event_counts=SELECT file, COUNT(*) AS n, MAX(seq) AS last FROM events GROUP BY file"
  "live_totals=SELECT file, SUM(size) AS bytes, COUNT(*) AS blocks FROM live_at_peak GROUP BY file"
  "step_totals=SELECT file, COUNT(*) AS n, MAX(peak_active_bytes) AS peak FROM steps GROUP BY file"
  "pools_rows=SELECT * FROM pools"
  "layer_rows=SELECT * FROM layers"
  "live_rows=SELECT file, addr, size, site, category, alloc_seq FROM live_at_peak"
  "events_stats=SELECT file_name, path_in_schema, stats_min_value, stats_max_value, stats_null_count, row_group_num_rows FROM parquet_metadata('\${DATASET}/rank=*/step=*/input=*/events.parquet') WHERE path_in_schema IN ('seq', 'size', 'category')"
  "events_actual=SELECT filename, COUNT(*) AS n, MIN(seq) AS seq_min, MAX(seq) AS seq_max, MIN(size) AS size_min, MAX(size) AS size_max, MIN(category) AS category_min, MAX(category) AS category_max, COUNT(*) - COUNT(category) AS category_nulls FROM read_parquet('\${DATASET}/rank=*/step=*/input=*/events.parquet', filename = true) GROUP BY filename"
)
for query in peak_per_rank_step growing_ranks top_sites_at_peak imbalance_per_step oom_ranks; do
  checks+=("$query=$docs/$query.sql")
done
(cd "$work" && node duckdb_run.mjs "$run/whole" "$docs/duckdb_views.sql" "${checks[@]}") >"$run/duckdb.json" || fail "DuckDB could not read the dataset"
python3 "$here/fleet_compare.py" "$run/facts.json" "$run/duckdb.json"

# A damaged dump among good ones: one line naming it, exit 1, the others written, none of its files;
# and a dump whose file name is Latin-1, not UTF-8: DuckDB reads its name with U+FFFD in it.
cp -r "$run/fleet" "$run/damaged"
cp "$run/fleet/iteration_5/rank1_memory_snapshot.pickle" "$run/damaged/iteration_5/"$'rank7_caf\xe9.pickle'

bad="$run/damaged/iteration_5/rank0_memory_snapshot.pickle"
head -c 100000 "$run/fleet/iteration_5/rank0_memory_snapshot.pickle" >"$bad"
set +e
"$memlens" export "$run/damaged" --parquet "$run/partial" --no-cache >"$run/partial.out" 2>"$run/partial.err"
status=$?
set -e
[ "$status" = 1 ] || fail "a damaged input exits $status, not 1"
[ "$(wc -l <"$run/partial.err")" = 1 ] && grep -q "rank0_memory_snapshot.pickle" "$run/partial.err" || fail "the error is not one line naming the file: $(cat "$run/partial.err")"
[ "$(find "$run/partial" -type f | wc -l)" = $((inputs * 7)) ] || fail "the damaged export wrote $(find "$run/partial" -type f | wc -l) files"
latin=$(cd "$work" && node duckdb_run.mjs "$run/partial" "$docs/duckdb_views.sql" "f=SELECT file FROM snapshots WHERE rank = 7 AND file LIKE '%caf%'")
[ "$latin" = '{"f":[{"file":"iteration_5/rank7_caf\ufffd.pickle"}]}' ] || [ "$latin" = '{"f":[{"file":"iteration_5/rank7_caf�.pickle"}]}' ] || fail "the Latin-1 name reads as $latin"
echo "fleet: DuckDB agrees with memlens on $inputs dumps; shards equal the whole; a damaged dump is reported: $(cat "$run/partial.err")"
