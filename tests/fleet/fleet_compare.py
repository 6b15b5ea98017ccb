#!/usr/bin/env python3
"""fleet_compare.py FACTS.json DUCKDB.json: memlens's Parquet dataset, as DuckDB read it, against
memlens's own commands on the same files (`summary FILE --json` per dump, `summary DIR --step S
--json` per step) and the fleet's manifest (which ranks make_fleet.py planted an outlier, a leak and
an OOM on). Prints each failure and exits 1 on any."""
import json
import re
import sys

facts = json.load(open(sys.argv[1]))
duck = json.load(open(sys.argv[2]))
manifest, summaries, overviews = facts['manifest'], facts['summaries'], facts['overviews']
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def rows(name):
    return duck[name]


COLUMNS = {
    'snapshots': ['file', 'device', 'name', 'entries', 'peak_active_bytes', 'peak_reserved_bytes', 'peak_time_us', 'oom_count',
                  'truncated', 'reserved_bytes', 'allocated_bytes', 'format', 'parameter_bytes_at_peak', 'gradient_bytes_at_peak',
                  'optimizer_state_bytes_at_peak', 'activation_bytes_at_peak', 'temporary_bytes_at_peak', 'kv_cache_bytes_at_peak', 'unknown_bytes_at_peak'],
    'steps': ['file', 'device', 'index', 'start_time_us', 'end_time_us', 'peak_active_bytes', 'peak_reserved_bytes',
              'end_active_bytes', 'partial'],
    'events': ['file', 'device', 'seq', 'time_us', 'action', 'addr', 'size', 'stream', 'pool', 'stack_id', 'category'],
    'stacks': ['file', 'stack_id', 'depth', 'frame', 'site'],
    'live_at_peak': ['file', 'device', 'addr', 'size', 'site', 'category', 'alloc_seq', 'module'],
    'pools': ['file', 'device', 'pool_id', 'segments', 'reserved_bytes', 'allocated_bytes'],
    'layers': ['file', 'device', 'layer', 'pass', 'forward_pass', 'first_seq', 'end_seq', 'peak_bytes', 'retained_bytes',
               'unfreed_bytes', 'transient_bytes', 'largest_bytes', 'at_peak_bytes'],
}
TYPES = {'file': 'VARCHAR', 'name': 'VARCHAR', 'action': 'VARCHAR', 'pool': 'VARCHAR', 'frame': 'VARCHAR', 'site': 'VARCHAR',
         'category': 'VARCHAR', 'format': 'VARCHAR', 'pool_id': 'VARCHAR', 'truncated': 'BOOLEAN', 'partial': 'BOOLEAN',
         'module': 'VARCHAR', 'pass': 'VARCHAR'}

# Every table reads, with the columns and types docs/commands.md lists, plus rank, step and input from the folders.
for table, columns in COLUMNS.items():
    described = [(r['column_name'], r['column_type']) for r in rows('describe_' + table)]
    want = [(c, TYPES.get(c, 'BIGINT')) for c in columns] + [('input', 'VARCHAR'), ('rank', 'BIGINT'), ('step', 'BIGINT')]
    check(described == want, f'{table}: DuckDB reads the columns {described}, expected {want}')

# The snapshots table against `summary FILE --json`, and rank / step against the file names.
snapshots = {r['file']: r for r in rows('snapshots')}
check(sorted(snapshots) == sorted(summaries), f'snapshots has files {sorted(snapshots)}, the fleet {sorted(summaries)}')
for name, summary in summaries.items():
    r = snapshots.get(name)
    if r is None:
        continue
    d = summary['devices'][0]
    m = re.search(r'iteration_(\d+)/rank(\d+)_', name)
    check((int(r['rank']), int(r['step'])) == (int(m.group(2)), int(m.group(1))), f'{name}: rank/step {r["rank"]}/{r["step"]}')
    for column, key in [('entries', 'entries'), ('peak_active_bytes', 'peak_active_bytes'), ('peak_reserved_bytes', 'peak_reserved_bytes'),
                        ('reserved_bytes', 'reserved_bytes'), ('allocated_bytes', 'allocated_bytes'), ('peak_time_us', 'peak_time_us')]:
        check(int(r[column]) == d[key], f'{name}: snapshots.{column} {r[column]}, summary {d[key]}')
    check(int(r['oom_count']) == len(d['oom_entries']), f'{name}: oom_count {r["oom_count"]}')
    check(r['truncated'] == d['truncated'], f'{name}: truncated {r["truncated"]}')
    check(r['format'] == summary['format'], f'{name}: format {r["format"]}')
    for category, bytes_ in d['category_bytes_at_peak'].items():
        check(int(r[category + '_bytes_at_peak']) == bytes_, f'{name}: {category}_bytes_at_peak {r[category + "_bytes_at_peak"]}, summary {bytes_}')

# Event counts equal entries; the live blocks at the peak add up to the peak; steps and pools.
events = {r['file']: r for r in rows('event_counts')}
live = {r['file']: r for r in rows('live_totals')}
steps = {r['file']: r for r in rows('step_totals')}
pools = {}
for r in rows('pools_rows'):
    pools.setdefault(r['file'], []).append(r)
for name, summary in summaries.items():
    d = summary['devices'][0]
    e = events.get(name, {'n': 0, 'last': None})
    check(int(e['n']) == d['entries'] and int(e['last']) == d['entries'] - 1, f'{name}: {e["n"]} event rows, {d["entries"]} entries')
    lv = live.get(name, {'bytes': 0, 'blocks': 0})
    check(int(lv['bytes']) == d['peak_active_bytes'], f'{name}: live_at_peak sums to {lv["bytes"]}, peak {d["peak_active_bytes"]}')
    check(int(lv['blocks']) == d['live_blocks_at_peak'], f'{name}: {lv["blocks"]} live rows, {d["live_blocks_at_peak"]} live blocks')
    st = steps.get(name)
    check((int(st['n']) if st else 0) == len(d['steps']), f'{name}: {st and st["n"]} step rows, {len(d["steps"])} steps')
    if st and d['steps']:
        check(int(st['peak']) == max(s['peak_active_bytes'] for s in d['steps']), f'{name}: steps peak {st["peak"]}')
    got = sorted((p['pool_id'], int(p['segments']), int(p['reserved_bytes']), int(p['allocated_bytes'])) for p in pools.get(name, []))
    want = sorted((f'{p["pool_id"][0]},{p["pool_id"][1]}', p['segments'], p['reserved_bytes'], p['allocated_bytes']) for p in d['pools'])
    check(got == want, f'{name}: pools {got}, summary {want}')

# Each layer's forward and backward, row by row, as `summary --json` lists them.
layer_rows = {}
for r in rows('layer_rows'):
    layer_rows.setdefault(r['file'], []).append(r)
layer_keys = [('layer', 'layer'), ('forward_pass', 'forward_pass'), ('first_seq', 'first_index'), ('end_seq', 'end_index'),
              ('peak_bytes', 'peak_bytes'), ('retained_bytes', 'retained_bytes'), ('unfreed_bytes', 'unfreed_bytes'),
              ('transient_bytes', 'transient_bytes'), ('largest_bytes', 'largest_bytes'), ('at_peak_bytes', 'at_peak_bytes')]
for name, summary in summaries.items():
    got = sorted((r['pass'], *[int(r[c]) for c, _ in layer_keys]) for r in layer_rows.get(name, []))
    want = sorted((l['pass'], *[l[k] for _, k in layer_keys]) for l in summary['devices'][0]['layers'])
    check(got == want, f'{name}: layers rows {got[:1]}…, summary {want[:1]}…')

# The blocks live at the peak, row by row: the largest 100 of each file are `summary --top 100`'s
# top_live_at_peak (address, size, site, category, the alloc entry), in its order.
live_rows = {}
for r in rows('live_rows'):
    live_rows.setdefault(r['file'], []).append(r)
for name, summary in summaries.items():
    mine = sorted(live_rows.get(name, []), key=lambda r: (-int(r['size']), int(r['addr'])))[:100]
    got = [(int(r['addr']), int(r['size']), r['site'], r['category'], None if r['alloc_seq'] is None else int(r['alloc_seq'])) for r in mine]
    want = [(b['addr'], b['size'], b['site'], b['category'], b['alloc_index']) for b in summary['devices'][0]['top_live_at_peak']]
    check(got == want, f'{name}: live_at_peak\'s largest blocks differ from summary --top 100: {[g for g, w in zip(got, want) if g != w][:2]}')

# The footer's statistics match the values in each file (DuckDB's parquet_metadata).
actual = {r['filename']: r for r in rows('events_actual')}
for s in rows('events_stats'):
    a = actual[s['file_name']]
    column = s['path_in_schema']
    if column == 'category':
        check(int(s['stats_null_count']) == int(a['category_nulls']), f'{s["file_name"]}: category null_count {s["stats_null_count"]}')
        check(s['stats_min_value'] == a['category_min'] and s['stats_max_value'] == a['category_max'], f'{s["file_name"]}: category min/max')
    else:
        check((int(s['stats_min_value']), int(s['stats_max_value'])) == (int(a[column + '_min']), int(a[column + '_max'])),
              f'{s["file_name"]}: {column} statistics {s["stats_min_value"]}…{s["stats_max_value"]}')
    check(int(s['row_group_num_rows']) == int(a['n']), f'{s["file_name"]}: row group of {s["row_group_num_rows"]} rows, {a["n"]} read')

# The shipped queries against memlens's own figures.
peak = {}  # (rank, step) -> peak
for name, summary in summaries.items():
    m = re.search(r'iteration_(\d+)/rank(\d+)_', name)
    peak[(int(m.group(2)), int(m.group(1)))] = summary['devices'][0]['peak_active_bytes']
heat = sorted((int(r['rank']), int(r['step']), int(r['peak_active_bytes'])) for r in rows('peak_per_rank_step'))
check(heat == sorted((r, s, p) for (r, s), p in peak.items()), 'peak_per_rank_step differs from summary FILE per dump')

ranks = sorted({r for r, _ in peak})
growth = {}
for rank in ranks:
    mine = sorted((s, p) for (r, s), p in peak.items() if r == rank)
    growth[rank] = mine[-1][1] - mine[0][1], mine[0][1]
ordered = sorted(g for g, _ in growth.values())
mid = len(ordered) // 2
median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
leaking = sorted(r for r, (g, first) in growth.items() if g - median > 0.01 * first)
got = sorted(int(r['rank']) for r in rows('growing_ranks'))
check(got == leaking, f'growing_ranks gives ranks {got}; summary FILE per dump gives {leaking}')
check(leaking == manifest['leak_ranks'], f'the leaking ranks {leaking} are not the planted {manifest["leak_ranks"]}')
for r in rows('growing_ranks'):
    check(int(r['growth_bytes']) == growth[int(r['rank'])][0], f'growing_ranks: rank {r["rank"]} grew {r["growth_bytes"]}')

for o in overviews:
    mine = [r for r in rows('imbalance_per_step') if int(r['step']) == o['step']]
    check(len(mine) == 1, f'imbalance_per_step has no row for step {o["step"]}')
    if mine:
        r = mine[0]
        check(abs(float(r['imbalance']) - o['imbalance']) < 1e-9, f'step {o["step"]}: imbalance {r["imbalance"]}, summary DIR {o["imbalance"]}')
        check(float(r['median_peak']) == o['median_peak_active_bytes'], f'step {o["step"]}: median {r["median_peak"]}')
        highest = max(o['ranks'], key=lambda x: (x['peak_active_bytes'], -x['rank']))
        check(int(r['highest_rank']) == highest['rank'], f'step {o["step"]}: highest rank {r["highest_rank"]}, summary DIR {highest["rank"]}')

want_ooms = []
for name, summary in summaries.items():
    m = re.search(r'iteration_(\d+)/rank(\d+)_', name)
    for o in summary['devices'][0]['oom_entries']:
        want_ooms.append((int(m.group(2)), int(m.group(1)), o['index'], o['size'], o['device_free']))
got_ooms = [(int(r['rank']), int(r['step']), int(r['seq']), int(r['requested_bytes']), int(r['device_free_bytes'])) for r in rows('oom_ranks')]
check(got_ooms == sorted(want_ooms), f'oom_ranks gives {got_ooms}; summary FILE {sorted(want_ooms)}')
check([g[0] for g in got_ooms] == [manifest['oom_rank']], f'the OOM ranks {got_ooms} are not the planted rank {manifest["oom_rank"]}')

sites = {r['site']: r for r in rows('top_sites_at_peak')}
latest = {}
for (r, s), p in peak.items():
    if s >= latest.get(r, (-1, 0))[0]:
        latest[r] = (s, p)
if len(sites) < 20:
    total = sum(int(r['bytes']) for r in sites.values())
    check(total == sum(p for _, p in latest.values()), f'top_sites_at_peak adds up to {total}, the latest peaks to {sum(p for _, p in latest.values())}')
dumps = len({s for _, s in peak})
planted = {'train.py:120:prefetch_batches': (manifest['outlier_bytes'], 1),
           'train.py:88:cache_outputs': (manifest['leak_bytes_per_dump'] * dumps * len(manifest['leak_ranks']), len(manifest['leak_ranks']))}
for site, (bytes_, ranks_) in planted.items():
    r = sites.get(site)
    check(r is not None and (int(r['bytes']), int(r['ranks'])) == (bytes_, ranks_), f'top_sites_at_peak: {site} is {r}, planted {bytes_} on {ranks_}')

for f in failures:
    print('FAIL:', f)
print(f'fleet: {len(summaries)} dumps, {len(failures)} failures')
sys.exit(1 if failures else 0)
