#!/usr/bin/env bash
# Runs fuzz_snapshot over seeds made from the corpus for SECONDS, then fuzz_session, fuzz_cache,
# fuzz_rank_summary, fuzz_mcp (the MCP server's request lines) and fuzz_parquet each for a
# tenth of that; crashes land in tests/fuzz/corpus-work/crashes (copy them to
# tests/data/fuzz-regressions as regression inputs).
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-600}
here=$(cd "$(dirname "$0")" && pwd)
work=$here/corpus-work
mkdir -p "$work/seeds" "$work/crashes" "$work/session-seeds" "$work/session-live"
python3 - "$work/session-seeds" <<'PY'
import json, os, sys
full = {"memlens_session": 1, "snapshot": {"path": "a.pickle", "size": 10, "checksum": "10-00"}, "device": 0,
        "page": "segments", "time_axis": False, "visible": [1.5, 300], "selected_event": 5, "selected_allocation": 2,
        "segments": {"bytes_per_row": 33554432},
        "stacks": {"bottom_up": True, "hide_noise": True, "python_only": False, "fold_recursion": False,
                   "allocated_in_range": False, "flame_zoom": "a.py:1:f\nb.py:2:g"},
        "annotations": [{"kind": "arrow", "view": "segments", "text": "hole", "x": 1.4e14, "y": 0, "x2": 40, "y2": 60,
                         "event": 5}], "from_the_future": {"x": [1, 2]}}
json.dump(full, open(os.path.join(sys.argv[1], "full.memlens"), "w"))
json.dump({"memlens_session": 1, "snapshot": {"path": "b"}}, open(os.path.join(sys.argv[1], "minimal.memlens"), "w"))
PY
corpus=$here/../corpus/snapshots
# Small real files as they are, larger ones cut down, and compressed forms.
cp "$corpus/streams_pending_free/snapshot.pickle" "$work/seeds/streams.pickle"
head -c 20000 "$corpus/gpt2_fp32_adamw/snapshot.pickle" > "$work/seeds/gpt2_head.pickle"
head -c 20000 "$corpus/oom_gpt2_medium_6gib/oom_snapshot.pickle" > "$work/seeds/oom_head.pickle"
zstd -q -f -c "$work/seeds/streams.pickle" > "$work/seeds/streams.pickle.zst"
# torch 2026 keys (annotate, pool_id, FX frames, host memory), cut down like the others.
python3 "$here/../tools/make_newer_snapshot.py" "$corpus/streams_pending_free/snapshot.pickle" "$work/newer" > /dev/null
cp "$work/newer/newer_p5.pickle" "$work/seeds/newer_p5.pickle"
gzip -c "$work/seeds/streams.pickle" > "$work/seeds/streams.pickle.gz"
python3 - "$work/seeds" <<'PY'
import json, pickle, sys, os
d = {'segments': [{'device': 0, 'address': 4096, 'total_size': 2097152, 'stream': 0, 'segment_type': 'small',
      'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': [],
      'blocks': [{'address': 4096, 'size': 512, 'requested_size': 500, 'state': 'active_allocated',
                  'frames': [{'name': 'f', 'filename': 'a.py', 'line': 1}]},
                 {'address': 4608, 'size': 2096640, 'requested_size': 0, 'state': 'inactive', 'frames': []}]}],
     'device_traces': [[{'action': 'alloc', 'addr': 4096, 'size': 500, 'stream': 0, 'time_us': 1,
                         'frames': [{'name': 'f', 'filename': 'a.py', 'line': 1}]},
                        {'action': 'oom', 'device_free': 10, 'size': 1 << 30, 'stream': 0, 'time_us': 2}]],
     'allocator_settings': {'garbage_collection_threshold': 0.5}, 'external_annotations': []}
out = sys.argv[1]
for p in (2, 4, 5):
    open(os.path.join(out, f'tiny_p{p}.pickle'), 'wb').write(pickle.dumps(d, protocol=p))
json.dump(d, open(os.path.join(out, 'tiny.json'), 'w'))
PY
# Profiler files: the head of the corpus trace and of both memory-timeline exports.
python3 - "$work/seeds" "$here/../corpus/profiles/gpt2_bf16_adamw" <<'PY'
import gzip, json, os, sys
out, src = sys.argv[1], sys.argv[2]
trace = json.load(gzip.open(os.path.join(src, 'trace.pt.trace.json.gz')))
events = trace['traceEvents']
mem = [e for e in events if e.get('name') == '[memory]'][:40]
ops = [e for e in events if e.get('ph') == 'X'][:40]
trace['traceEvents'] = ops + mem
json.dump(trace, open(os.path.join(out, 'trace_head.json'), 'w'))
times, rows = json.load(gzip.open(os.path.join(src, 'memory_timeline.json.gz')))
json.dump([times[:30], rows[:30]], open(os.path.join(out, 'timeline_head.json'), 'w'))
raw = json.load(gzip.open(os.path.join(src, 'memory_timeline.raw.json.gz')))
json.dump(raw[:40], open(os.path.join(out, 'timeline_raw_head.json'), 'w'))
PY
mkdir -p "$work/live"
"$build/bin/fuzz_snapshot" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$seconds" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "$work/live" "$work/seeds"
"$build/bin/fuzz_session" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$(( seconds / 10 > 10 ? seconds / 10 : 10 ))" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "$work/session-live" "$work/session-seeds"
# The cache reader: seeds start a bare payload and a whole entry (first byte 0 / 1) with
# their magic bytes; libFuzzer finds the rest from there.
mkdir -p "$work/cache-seeds" "$work/cache-live"
printf '\001MLCACHE\n' > "$work/cache-seeds/entry_magic"
# Real entries and payloads, written by memlens itself for the tiny seeds: libFuzzer starts from
# the current format instead of guessing it.
memlens=${MEMLENS:-$here/../../build/bin/memlens}
if [ -x "$memlens" ]; then
  rm -rf "$work/cache-home"
  # And a trace of 9,000 entries, whose event columns are zstd frames of their own in the entry.
  python3 - "$work/long_trace.pickle" <<'PY'
import pickle, sys
frames = [{'name': 'f', 'filename': 'a.py', 'line': 1}]
trace = [{'action': 'alloc' if i % 2 == 0 else 'free_completed', 'addr': 4096 + 512 * (i // 2 % 7), 'size': 512,
          'stream': 0, 'time_us': i, 'frames': frames} for i in range(9000)]
pickle.dump({'segments': [], 'device_traces': [trace]}, open(sys.argv[1], 'wb'), protocol=4)
PY
  for seed in "$work/seeds/tiny_p4.pickle" "$work/seeds/newer_p5.pickle" "$work/long_trace.pickle"; do
    XDG_CACHE_HOME="$work/cache-home" "$memlens" summary "$seed" > /dev/null
  done
  python3 - "$work/cache-home/memlens" "$work/cache-seeds" <<'PY'
import os, struct, subprocess, sys
src, out = sys.argv[1], sys.argv[2]
for i, name in enumerate(sorted(n for n in os.listdir(src) if not n.startswith('.'))):
    entry = open(os.path.join(src, name), 'rb').read()
    open(os.path.join(out, f'entry_{i}'), 'wb').write(b'\x01' + entry)
    # Header (SnapshotCache's header()): magic, version, size, mtime, ctime, inode, path,
    # checksum, payload size; then zstd frames.
    at = 8 + 4 + 8 + 8 + 8 + 8
    (n,) = struct.unpack_from('<I', entry, at); at += 4 + n
    (n,) = struct.unpack_from('<I', entry, at); at += 4 + n + 8
    payload = subprocess.run(['zstd', '-d', '-c'], input=entry[at:], capture_output=True).stdout
    if payload:
        open(os.path.join(out, f'payload_{i}'), 'wb').write(b'\x00' + payload)
PY
fi
"$build/bin/fuzz_cache" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$(( seconds / 10 > 10 ? seconds / 10 : 10 ))" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "$work/cache-live" "$work/cache-seeds"
# FILE.summary.json in the shape `memlens summary FILE --json` writes, the seed for the rank reader.
mkdir -p "$work/rank-seeds" "$work/rank-live"
python3 - "$work/rank-seeds" <<'PY'
import json, os, sys
categories = {k: 1 << 20 for k in ["parameter", "gradient", "optimizer_state", "activation", "temporary", "kv_cache", "unknown"]}
device = {"device": 0, "peak_active_bytes": 5 << 30, "peak_reserved_bytes": 6 << 30, "oom_entries": [{"event": 3}],
          "category_bytes_at_peak": categories}
json.dump({"file": "dir/rank0.pickle", "devices": [device, dict(device, device=1)]},
          open(os.path.join(sys.argv[1], "two_devices.summary.json"), "w"))
PY
"$build/bin/fuzz_rank_summary" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$(( seconds / 10 > 10 ? seconds / 10 : 10 ))" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "$work/rank-live" "$work/rank-seeds"
# The MCP server's request handling: seeds are a session as a client opens it and tool calls on
# the snapshot below the fuzzer's root (s.pickle), one JSON-RPC message a line.
mkdir -p "$work/mcp-seeds" "$work/mcp-live"
python3 - "$work/mcp-seeds" <<'PY'
import json, os, sys
root = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'memlens-fuzz-mcp')
lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}}},
         {"jsonrpc": "2.0", "method": "notifications/initialized"},
         {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
         {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "summary", "arguments": {"path": root + "/s.pickle"}}},
         {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "search", "arguments": {"path": root + "/s.pickle", "text": "f"}}},
         {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "live_at", "arguments": {"path": root + "/s.pickle", "at": "peak"}}},
         {"jsonrpc": "2.0", "id": 6, "method": "ping"}]
open(os.path.join(sys.argv[1], 'session'), 'w').write('\n'.join(json.dumps(l) for l in lines) + '\n')
# Nesting at the server's limit (64) and past it, in params, an id and a tool's arguments: a
# 140,000-deep line once overflowed the stack.
def nested(depth):
    return '[' * depth + ']' * depth
deep = ['{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":%s}}' % nested(62),
        '{"jsonrpc":"2.0","id":8,"method":"ping","params":%s}' % nested(65),
        '{"jsonrpc":"2.0","id":%s,"method":"ping"}' % nested(2000),
        '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"summary","arguments":{"path":%s}}}' % nested(1000)]
for k, line in enumerate(deep):  # one a seed: each within -max_len
    open(os.path.join(sys.argv[1], 'deep%d' % k), 'w').write(line + '\n')
PY
"$build/bin/fuzz_mcp" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
  -max_total_time="$(( seconds / 10 > 10 ? seconds / 10 : 10 ))" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "$work/mcp-live" "$work/mcp-seeds"
# The Parquet reader: seeds are the tables memlens export writes for the tiny seeds (every kind
# of column: dictionary and plain strings, nullable integers, booleans).
mkdir -p "$work/parquet-seeds" "$work/parquet-live"
if [ -x "$memlens" ]; then
  rm -rf "$work/parquet-export"
  for seed in "$work/seeds/tiny_p4.pickle" "$work/seeds/newer_p5.pickle"; do
    "$memlens" export "$seed" --parquet "$work/parquet-export" --no-cache > /dev/null
  done
  i=0
  for f in $(find "$work/parquet-export" -name '*.parquet' | sort); do cp "$f" "$work/parquet-seeds/table_$i.parquet"; i=$((i + 1)); done
fi
"$build/bin/fuzz_parquet" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -max_total_time="$(( seconds / 10 > 10 ? seconds / 10 : 10 ))" -artifact_prefix="$work/crashes/" -print_final_stats=1 \
  "$work/parquet-live" "$work/parquet-seeds"
