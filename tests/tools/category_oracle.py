#!/usr/bin/env python3
"""What the allocations alive at the peak are, read from the forward / backward / optimizer marks
our recording script (tests/corpus/gen) put around each pass: an oracle for memlens's categories,
which read no marks. Trusted corpus files only (CPython's pickle).

    category_oracle.py SNAPSHOT   → {"peak_bytes": N, "categories": {"parameter": N, …}}

An allocation is named by the pass that made it and the pass that freed it:
  optimizer, kept past its step or never freed  optimizer_state; freed in the step: temporary
  backward, freed by the optimizer or later       gradient;        freed in backward: temporary
  forward, freed in backward or later             activation;      freed in forward: temporary;
                                                  never freed: unknown (a cache)
  outside the passes, before the first forward    parameter when never freed; anything else unknown
The peak is the first allocation at which the requested bytes in use are highest.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402

PASSES = ('forward', 'backward', 'optimizer')


def pass_at(spans, t):
    """The innermost pass whose range holds t (the latest to start), or None."""
    best = None
    for name, start, end in spans:
        if start <= t <= end and (best is None or start >= best[1]):
            best = (name, start)
    return best[0] if best else None


def category(made, freed, first_forward, born_at):
    if made == 'optimizer':
        return 'optimizer_state' if freed != 'optimizer' else 'temporary'
    if made == 'backward':
        return 'temporary' if freed == 'backward' else 'gradient'
    if made == 'forward':
        if freed == 'never':
            return 'unknown'
        return 'temporary' if freed == 'forward' else 'activation'
    return 'parameter' if freed == 'never' and born_at < first_forward else 'unknown'


def main(path):
    data = open_any(path)
    marks = sorted((m for m in data['external_annotations'] if m['device'] == 0 and m['name'] in PASSES),
                   key=lambda m: m['time_us'])
    spans, open_at = [], {}
    for m in marks:
        if m['stage'] == 'START':
            open_at[m['name']] = m['time_us']
        elif m['name'] in open_at:
            spans.append((m['name'], open_at.pop(m['name']), m['time_us']))
    spans += [(name, start, float('inf')) for name, start in open_at.items()]
    first_forward = min((s for n, s, _ in spans if n == 'forward'), default=float('inf'))
    trace = data['device_traces'][0]
    live, active, peak, peak_live = {}, 0, -1, {}
    freed_at = {}  # alloc entry → its free_completed entry
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            live[e['addr']] = i
            active += e['size']
            if active > peak:
                peak, peak_live = active, dict(live)
        elif e['action'] == 'free_completed' and e['addr'] in live:
            born = live.pop(e['addr'])
            freed_at[born] = i
            active -= trace[born]['size']
    totals = dict.fromkeys(['parameter', 'gradient', 'optimizer_state', 'activation', 'temporary', 'unknown'], 0)
    for addr, i in peak_live.items():
        e = trace[i]
        gone = freed_at.get(i)
        freed = 'never' if gone is None else (pass_at(spans, trace[gone]['time_us']) or 'outside')
        totals[category(pass_at(spans, e['time_us']), freed, first_forward, e['time_us'])] += e['size']
    print(json.dumps({'peak_bytes': peak, 'categories': totals}))


if __name__ == '__main__':
    main(sys.argv[1])
