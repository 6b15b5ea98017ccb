#!/usr/bin/env python3
"""Builds a large, realistic snapshot from a corpus one, for benchmarks.

The steady-state training steps of the source trace (from the first `free_completed` after the
last allocation of the first step to the end) are repeated with shifted times until the trace
has the requested number of entries. As in torch's own snapshots, each alloc's frame list and
each compile_context string are written anew (its frees and the frame dicts are memo
references). Protocol 4.

    make_large_snapshot.py SOURCE OUT --entries 12000000
"""
import argparse
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any, repeated_as_torch_writes  # noqa: E402


def steady_period(trace):
    """Indices [a, b) of a slice that leaves the allocator where it found it: between two
    points where the set of live addresses is the same."""
    live = set()
    states = {}
    for i, e in enumerate(trace):
        act = e['action']
        if act == 'alloc':
            live.add(e['addr'])
        elif act == 'free_completed':
            live.discard(e['addr'])
        key = frozenset(live)
        if key in states and i - states[key] > len(trace) // 8:
            return states[key] + 1, i + 1
        states.setdefault(key, i)
    return 0, len(trace)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--entries', type=int, default=12_000_000)
    args = ap.parse_args()
    data = open_any(args.source)
    trace = data['device_traces'][0]
    a, b = steady_period(trace)
    period = [e for e in trace[a:b] if not e['action'].startswith('segment_')]
    span = period[-1]['time_us'] - period[0]['time_us'] + 1000
    out = list(trace[:b])
    shift = 0
    while len(out) < args.entries:
        shift += span
        out.extend(repeated_as_torch_writes(period[:args.entries - len(out)], shift))
    # Close what the cut-off period left open so the trace ends where the snapshot does.
    end_shift = shift + span
    tail = repeated_as_torch_writes(trace[b:], end_shift)
    live = {}
    for e in out:
        if e['action'] == 'alloc':
            live[e['addr']] = e
        elif e['action'] == 'free_completed':
            live.pop(e['addr'], None)
    base_live = set()
    for e in trace[:b]:
        if e['action'] == 'alloc':
            base_live.add(e['addr'])
        elif e['action'] == 'free_completed':
            base_live.discard(e['addr'])
    t = out[-1]['time_us']
    for addr, e in live.items():
        if addr not in base_live:
            for act in ('free_requested', 'free_completed'):
                t += 1
                out.append(dict(e, action=act, time_us=t))
    out.extend(tail)
    data['device_traces'][0] = out
    with open(args.out, 'wb') as f:
        pickle.dump(data, f, protocol=4)
    print(f'{args.out}: {len(out)} entries, {os.path.getsize(args.out)} bytes')


if __name__ == '__main__':
    main()
