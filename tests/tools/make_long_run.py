#!/usr/bin/env python3
"""Builds a long, many-step run from the corpus run with varying sequence lengths
(frag_varlen_gpt2), as real long runs look: hundreds or thousands of steps, each with its own
forward / backward / optimizer record_function phases, sequence lengths that vary from step to
step, each alloc's frame list and each compile_context string written anew as torch writes
them (frame dicts and the frees' references to their alloc's list shared through the memo).

The run's steps between two forward STARTs where the same addresses are live (a steady stretch)
are repeated with shifted times, phases included, until the trace has the requested number of
entries; the steps after that stretch then close the run as they did originally. Segment
events are kept only in the first pass (the allocator has reserved its segments by then).

    make_long_run.py SOURCE OUT --entries 12000000   (or --steps 400)
"""
import argparse
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any, repeated_as_torch_writes  # noqa: E402


def forward_starts(data):
    return [a['time_us'] for a in data['external_annotations']
            if a['name'] == 'forward' and a['stage'] == 'START' and a['device'] == 0]


def steady_stretch(trace, starts):
    """(step a, step b, event index of each): the longest stretch of whole steps that ends with
    the same addresses live as it began."""
    live, seen, first, b = set(), {}, None, 0
    boundaries = []
    for i, e in enumerate(trace):
        while b < len(starts) and e['time_us'] >= starts[b]:
            boundaries.append((b, i, frozenset(live)))
            b += 1
        if e['action'] == 'alloc':
            live.add(e['addr'])
        elif e['action'] == 'free_completed':
            live.discard(e['addr'])
    best = None
    for (sa, ia, la) in boundaries:
        for (sb, ib, lb) in boundaries:
            if sb > sa and la == lb and (best is None or sb - sa > best[1] - best[0]):
                best = (sa, sb, ia, ib)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--entries', type=int, default=0)
    ap.add_argument('--steps', type=int, default=0)
    args = ap.parse_args()
    data = open_any(args.source)
    trace = data['device_traces'][0]
    starts = forward_starts(data)
    sa, sb, ia, ib = steady_stretch(trace, starts)
    period = [e for e in trace[ia:ib] if not e['action'].startswith('segment_')]
    t0, t1 = starts[sa], starts[sb]
    span = t1 - t0
    marks = data['external_annotations']
    period_marks = [m for m in marks if t0 <= m['time_us'] < t1]
    out = list(trace[:ib])
    out_marks = [m for m in marks if m['time_us'] < t1]
    tail = trace[ib:]
    tail_marks = [m for m in marks if m['time_us'] >= t1]
    steps_per_period = sb - sa
    steps = len(starts) - (len(starts) - sb)  # steps before the tail
    shift = 0

    def done():
        if args.steps:
            return steps + (len(starts) - sb) >= args.steps
        return len(out) + len(tail) >= args.entries

    while not done():
        shift += span
        out.extend(repeated_as_torch_writes(period, shift))
        out_marks.extend(dict(m, time_us=m['time_us'] + shift) for m in period_marks)
        steps += steps_per_period
    shift += span
    out.extend(repeated_as_torch_writes(tail, shift))
    out_marks.extend(dict(m, time_us=m['time_us'] + shift) for m in tail_marks)
    data['device_traces'][0] = out
    data['external_annotations'] = out_marks
    with open(args.out, 'wb') as f:
        pickle.dump(data, f, protocol=4)
    total_steps = steps + (len(starts) - sb)
    print(f'{args.out}: {len(out)} entries, {total_steps} steps, {len(out_marks)} phase marks, '
          f'{os.path.getsize(args.out)} bytes')


if __name__ == '__main__':
    main()
