#!/usr/bin/env python3
"""Plants a training leak in a corpus snapshot: in every step (as each `forward` ends), one
allocation of SIZE bytes from one call site (train.py:42:leaky) that is never freed, as a
loss kept in a list would be. The allocations live in one new segment that the trace reserves
with the first of them, and the final snapshot lists that segment with the leaked blocks, so
trace and final state agree.

    plant_leak.py SOURCE OUT [--size BYTES] [--at forward-end|forward-start]

--at forward-start plants each one as its `forward` starts, before the step's first module call
(a batch's tensor kept by the loop), so the first lies before any step the evidence opens.
"""
import argparse
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402

SEGMENT = 64 << 20
ADDRESS = 0x7e0000000000  # below every address the corpus runs use


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--size', type=int, default=4 << 20)
    ap.add_argument('--at', choices=['forward-end', 'forward-start'], default='forward-end')
    args = ap.parse_args()
    data = open_any(args.source)
    trace = data['device_traces'][0]
    starts = [a['time_us'] for a in data['external_annotations']
              if a['name'] == 'forward' and a['stage'] == ('END' if args.at == 'forward-end' else 'START') and a['device'] == 0]
    assert args.size % 512 == 0 and len(starts) * args.size <= SEGMENT
    frames = [{'name': 'leaky', 'filename': '/srv/train.py', 'line': 42},
              {'name': '<module>', 'filename': '/srv/train.py', 'line': 90}]
    inserts = []
    for k, t in enumerate(starts):
        entry = {'action': 'alloc', 'addr': ADDRESS + k * args.size, 'size': args.size, 'stream': 0,
                 'time_us': t, 'compile_context': 'N/A', 'user_metadata': '', 'frames': frames}
        if k == 0:
            inserts.append({'action': 'segment_alloc', 'addr': ADDRESS, 'size': SEGMENT, 'stream': 0,
                            'time_us': t, 'compile_context': 'N/A', 'user_metadata': '', 'frames': frames})
        inserts.append(entry)
    out, i = [], 0
    for e in trace:
        while i < len(inserts) and inserts[i]['time_us'] <= e['time_us']:
            out.append(inserts[i])
            i += 1
        out.append(e)
    out.extend(inserts[i:])
    data['device_traces'][0] = out
    leaked = len(starts) * args.size
    blocks = [{'address': ADDRESS + k * args.size, 'size': args.size, 'requested_size': args.size,
               'state': 'active_allocated', 'frames': frames} for k in range(len(starts))]
    blocks.append({'address': ADDRESS + leaked, 'size': SEGMENT - leaked, 'requested_size': 0,
                   'state': 'inactive', 'frames': []})
    data['segments'].insert(0, {'device': 0, 'address': ADDRESS, 'total_size': SEGMENT, 'allocated_size': leaked,
                                'active_size': leaked, 'requested_size': leaked, 'stream': 0, 'segment_type': 'large',
                                'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': frames, 'blocks': blocks})
    with open(args.out, 'wb') as f:
        pickle.dump(data, f, protocol=4)
    print(f'{args.out}: {len(starts)} leaks of {args.size} bytes')


if __name__ == '__main__':
    main()
