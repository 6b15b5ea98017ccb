#!/usr/bin/env python3
"""cut_dumps.py SOURCE OUTDIR --every K --window W [--rank R] [--marks ours|torch|none]: the dumps a training
job writes when it calls torch.cuda.memory._dump_snapshot() every K steps with a trace ring buffer
of W entries (max_entries), cut from one complete run, in torchtitan's layout
OUTDIR/iteration_N/rankR_memory_snapshot.pickle (N: the steps done when it was written).

A dump is taken where a step ends (just before the next `forward` START) and again at the end of
the run. It holds the newest W entries before that moment and the record_function marks from its
first entry's time on (torch keeps marks in a ring buffer of its own; cutting both at the same
time is the simplification). Its segments and blocks are the allocator state at its end: the
source's final state with the trace undone back to that moment, by MemoryViz's rule
(memoryviz_state.simulate_many). A block the trace recreates is its request rounded to 512 bytes;
a block still owed a free_completed in the window is active_pending_free. --marks torch keeps only
the marks torch writes by itself in the dumps, --marks none none at all, as users' dumps are (the
moments are still found from the source's own marks). Prints one JSON line per dump: file, step,
first and last entry index in the source."""
import argparse
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memoryviz_state import simulate_many  # noqa: E402
from snapshot_facts import open_any  # noqa: E402


def segment_of(seg, blocks, final_by_addr, pending, device):
    """A snapshot segment dict for the simulated segment `seg` with its active `blocks`."""
    out_blocks, cursor, allocated, requested = [], seg['addr'], 0, 0
    for b in blocks:
        if b['addr'] > cursor:
            out_blocks.append({'address': cursor, 'size': b['addr'] - cursor, 'requested_size': 0, 'state': 'inactive', 'frames': []})
        state = 'active_pending_free' if b['addr'] in pending else 'active_allocated'
        final = final_by_addr.get(b['addr'])
        frames = final['frames'] if final and final['size'] == b['size'] and final.get('requested_size') == b['requested'] else []
        out_blocks.append({'address': b['addr'], 'size': b['size'], 'requested_size': b['requested'], 'state': state, 'frames': frames})
        allocated += b['size']
        requested += b['requested']
        cursor = b['addr'] + b['size']
    end = seg['addr'] + seg['size']
    if cursor < end:
        out_blocks.append({'address': cursor, 'size': end - cursor, 'requested_size': 0, 'state': 'inactive', 'frames': []})
    return {'device': device, 'address': seg['addr'], 'total_size': seg['size'], 'allocated_size': allocated,
            'active_size': allocated, 'requested_size': requested, 'stream': seg['stream'],
            'segment_type': 'small' if seg['size'] <= 2 << 20 else 'large', 'segment_pool_id': (0, 0),
            'is_expandable': False, 'frames': [], 'blocks': out_blocks}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('outdir')
    ap.add_argument('--every', type=int, required=True)
    ap.add_argument('--window', type=int, required=True)
    ap.add_argument('--rank', type=int, default=0)
    ap.add_argument('--marks', choices=['ours', 'torch', 'none'], default='ours')
    args = ap.parse_args()
    data = open_any(args.source)
    trace = data['device_traces'][0]
    marks = [m for m in data['external_annotations'] if m['device'] == 0]
    starts = sorted(m['time_us'] for m in marks if m['name'] == 'forward' and m['stage'] == 'START')
    # (steps done, moment, index of the last entry before it)
    cuts = []
    for k in range(args.every, len(starts), args.every):
        cuts.append([k, starts[k], None])
    cuts.append([len(starts), trace[-1]['time_us'] + 1, None])
    position = 0
    for cut in cuts:  # the last entry before each moment, in one forward pass
        while position + 1 < len(trace) and trace[position + 1]['time_us'] < cut[1]:
            position += 1
        cut[2] = position
    states = simulate_many(data, 0, [c[2] for c in cuts])
    final_blocks = {}
    for seg in data['segments']:
        for b in seg['blocks']:
            if 'address' in b:
                final_blocks[b['address']] = b
    for steps, moment, last in cuts:
        first = max(0, last + 1 - args.window)
        window = trace[first:last + 1]
        pending = {}
        for e in window:
            if e['action'] == 'free_requested':
                pending[e['addr']] = True
            elif e['action'] in ('free_completed', 'alloc'):
                pending.pop(e['addr'], None)
        segments, blocks = states[last]
        blocks = sorted(blocks, key=lambda b: b['addr'])
        out_segments = []
        for seg in sorted(segments, key=lambda s: s['addr']):
            inside = [b for b in blocks if seg['addr'] <= b['addr'] < seg['addr'] + seg['size']]
            out_segments.append(segment_of(seg, inside, final_blocks, pending, 0))
        dump = dict(data)
        dump['segments'] = out_segments
        dump['device_traces'] = [window]
        dump['external_annotations'] = [m for m in marks if window[0]['time_us'] <= m['time_us'] < moment and
                                        (args.marks == 'ours' or (args.marks == 'torch' and m['name'] not in ('forward', 'backward', 'optimizer')))]
        folder = os.path.join(args.outdir, f'iteration_{steps}')
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f'rank{args.rank}_memory_snapshot.pickle')
        with open(path + '.tmp', 'wb') as f:
            pickle.dump(dump, f, protocol=4)
        os.replace(path + '.tmp', path)
        print(json.dumps({'file': path, 'step': steps, 'first': first, 'last': last,
                          'first_time_us': window[0]['time_us'], 'last_time_us': window[-1]['time_us']}))


if __name__ == '__main__':
    main()
