#!/usr/bin/env python3
"""Damages a corpus snapshot in one way per file, each one that still decodes, and prints for
each file the warning kind a reader must report and the highest peak the damaged trace allows
(JSON: {file: {kind, peak_at_most, skip_actions}}).

    make_inconsistent.py SOURCE OUTDIR
"""
import copy
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402

PETABYTE = 1 << 50


def peak(trace):
    live, active, best = {}, 0, 0
    for e in trace:
        if e['action'] == 'alloc':
            size = e['size']
            live[e['addr']] = size if isinstance(size, (int, float)) and size <= PETABYTE else 0
            active += live[e['addr']]
            best = max(best, active)
        elif e['action'] == 'free_completed' and e['addr'] in live:
            active -= live.pop(e['addr'])
    return best


def segment_with_blocks(data, n):
    return next(s for s in data['segments'] if len(s['blocks']) >= n and s['blocks'][0]['size'] > 512)


def block_outside(data):
    seg = segment_with_blocks(data, 1)
    seg['blocks'][-1]['address'] = seg['address'] + seg['total_size'] + (1 << 20)


def moved(block):
    """A live block moved off its allocation's address reads as one older than the trace."""
    return block['requested_size'] if block['state'].startswith('active') else 0


def blocks_overlap(data):
    seg = segment_with_blocks(data, 2)
    seg['blocks'][1]['address'] = seg['blocks'][0]['address'] + 512
    return moved(seg['blocks'][1])


def blocks_larger(data):
    seg = segment_with_blocks(data, 2)
    seg['blocks'][-1]['size'] += seg['total_size']


def blocks_with_a_hole(data):
    """A segment's blocks no longer cover it: an inactive block dropped from its list (a trimmed
    or hand-made file; torch lists every block, free ones included)."""
    seg = next(s for s in data['segments'] if any(b['state'] == 'inactive' for b in s['blocks']) and len(s['blocks']) >= 2)
    seg['blocks'] = [b for b in seg['blocks'] if b is not next(b for b in seg['blocks'] if b['state'] == 'inactive')]


def segments_overlap(data):
    a, b = data['segments'][0], data['segments'][1]
    b['address'] = a['address'] + 512
    for k, block in enumerate(b['blocks']):
        block['address'] = b['address'] + sum(x['size'] for x in b['blocks'][:k])
    return sum(moved(block) for block in b['blocks'])


def entry_size(data):
    trace = data['device_traces'][0]
    alloc = next(e for e in trace if e['action'] == 'alloc')
    for e in trace:
        if e['addr'] == alloc['addr'] and e['action'] != 'alloc':
            e['size'] = 1 << 62
    alloc['size'] = 1 << 62


def entry_size_of(value):
    """The first allocation's entries say `value` as their size: an integer beyond 64 bits, NaN,
    infinity or a string, which no size column holds."""
    def damage(data):
        trace = data['device_traces'][0]
        alloc = next(e for e in trace if e['action'] == 'alloc')
        for e in trace:
            if e['addr'] == alloc['addr']:
                e['size'] = value
    return damage


def segment_size(data):
    data['segments'][0]['total_size'] = 1 << 62


def _reused_free(trace):
    """Index of a free_completed whose address is allocated again later."""
    for i, e in enumerate(trace):
        if e['action'] == 'free_completed' and any(x['action'] == 'alloc' and x['addr'] == e['addr'] for x in trace[i + 1:]):
            return i
    raise SystemExit('no reused address')


def allocated_twice(data):
    trace = data['device_traces'][0]
    i = _reused_free(trace)
    addr = trace[i]['addr']
    j = max(k for k in range(i) if trace[k]['action'] == 'free_requested' and trace[k]['addr'] == addr)
    del trace[i]
    del trace[j]


def no_free_completed(data):
    data['device_traces'][0] = [e for e in data['device_traces'][0] if e['action'] != 'free_completed']


def double_free(data):
    trace = data['device_traces'][0]
    i = _reused_free(trace)
    trace.insert(i + 1, dict(trace[i]))


def trimmed_segments(data):
    """Segments dumped at another moment than the trace's end (a trimmed snapshot): none of the
    final blocks is allocated, while the trace ends with allocations alive."""
    for seg in data['segments']:
        for block in seg['blocks']:
            block['state'] = 'inactive'
            block['requested_size'] = 0
        seg['allocated_size'] = seg['active_size'] = seg['requested_size'] = 0


def segments_cut_away(data):
    """The segments holding the trace's last allocations cut out of the file."""
    trace = data['device_traces'][0]
    live = {}
    for e in trace:
        if e['action'] == 'alloc':
            live[e['addr']] = True
        elif e['action'] == 'free_completed':
            live.pop(e['addr'], None)
    data['segments'] = [s for s in data['segments'] if not any(s['address'] <= a < s['address'] + s['total_size'] for a in live)]


CASES = {
    'block_outside_segment': block_outside,
    'blocks_overlap': blocks_overlap,
    'blocks_larger_than_segment': blocks_larger,
    'segments_overlap': segments_overlap,
    'blocks_do_not_tile_segment': blocks_with_a_hole,
    'implausible_entry_size': entry_size,
    'implausible_entry_size_beyond_64_bits': entry_size_of(1 << 70),
    'implausible_entry_size_nan': entry_size_of(float('nan')),
    'implausible_entry_size_inf': entry_size_of(float('inf')),
    'implausible_entry_size_text': entry_size_of('12 MiB'),
    'implausible_segment_size': segment_size,
    'allocated_twice': allocated_twice,
    'allocated_twice_skip_actions': no_free_completed,
    'unexplained_frees': double_free,
    'allocations_disagree_with_segments': trimmed_segments,
    'allocations_disagree_with_segments_cut': segments_cut_away,
}


def main(source, outdir):
    os.makedirs(outdir, exist_ok=True)
    original = open_any(source)
    facts = {}
    for name, damage in CASES.items():
        data = copy.deepcopy(original)
        tolerance = damage(data) or 0
        path = os.path.join(outdir, name + '.pickle')
        with open(path, 'wb') as f:
            pickle.dump(data, f, protocol=4)
        kind = 'implausible_entry_size' if name.startswith('implausible_entry_size') else name.replace('_skip_actions', '').replace('_cut', '')
        facts[name] = {'kind': kind, 'peak_at_most': peak(data['device_traces'][0]) + tolerance,
                       'skip_actions': name.endswith('_skip_actions')}
    # skip_actions=['free_requested']: nothing is inconsistent, the figures are the original's.
    data = copy.deepcopy(original)
    data['device_traces'][0] = [e for e in data['device_traces'][0] if e['action'] != 'free_requested']
    with open(os.path.join(outdir, 'skip_free_requested.pickle'), 'wb') as f:
        pickle.dump(data, f, protocol=4)
    facts['skip_free_requested'] = {'kind': None, 'peak_at_most': peak(data['device_traces'][0]), 'skip_actions': True}
    print(json.dumps(facts, indent=1))


if __name__ == '__main__':
    main(*sys.argv[1:])
