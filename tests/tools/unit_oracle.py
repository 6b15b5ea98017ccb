#!/usr/bin/env python3
"""Independent reading of a sharded run's units: what is live at the peak (or after an event) by
the FSDP unit whose hooks were running when it was allocated, from the file alone.

    unit_oracle.py FILE [--event N]

Units, as torch's FSDP2 marks them (torch/distributed/fsdp/_fully_shard/_fsdp_state.py and
_fsdp_param_group.py): a forward pass of unit U runs from the START of `FSDP::pre_forward (U)` to
the END of the next `FSDP::post_forward (U)`; the root's marks have no `(U)` and name "(root)". A
backward pass runs from `FSDP::pre_backward (U)` to the end of the last `FSDP::post_backward… (U)`
before the unit's next pass. An allocation belongs to the innermost (latest started) pass open
at its time; none: outside any unit. The peak is the first entry at which the running sum of
alloc sizes less completed frees is highest.

Prints {"units": {NAME: bytes, ...}, "outside": bytes, "event": N}: live bytes by unit.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402

HOOK = re.compile(r'^(?:FSDP|FullyShardedDataParallel)::(\w+)(?: \((.*)\))?$')


def passes(marks):
    """[(start, end, unit)] from the FSDP hook marks of device 0."""
    marks = sorted((m for m in marks if m.get('device', 0) == 0), key=lambda m: m['time_us'])
    open_fwd, open_bwd, out = {}, {}, []
    for m in marks:
        hit = HOOK.match(m['name'])
        if not hit:
            continue
        hook, unit = hit.group(1), hit.group(2) or '(root)'
        t = m['time_us']
        if hook == 'pre_forward' and m['stage'] == 'START':
            b = open_bwd.get(unit)
            if b and b[1] is not None and b[1] <= t:
                out.append((b[0], b[1], unit))
                del open_bwd[unit]
            open_fwd.setdefault(unit, t)
        elif hook == 'post_forward' and m['stage'] == 'END' and unit in open_fwd:
            out.append((open_fwd.pop(unit), t, unit))
        elif hook == 'pre_backward' and m['stage'] == 'START':
            b = open_bwd.pop(unit, None)
            if b:
                out.append((b[0], b[1] if b[1] is not None else t, unit))
            open_bwd[unit] = [t, None]
        elif hook.startswith('post_backward') and m['stage'] == 'END' and unit in open_bwd:
            open_bwd[unit][1] = t
    inf = float('inf')
    out += [(s, inf, u) for u, s in open_fwd.items()]
    out += [(b[0], b[1] if b[1] is not None else inf, u) for u, b in open_bwd.items()]
    return out


def unit_at(spans, t):
    best = None
    for s, e, u in spans:
        if s <= t <= e and (best is None or s >= best[0]):
            best = (s, u)
    return best[1] if best else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--event', type=int)
    a = ap.parse_args()
    data = open_any(a.file)
    trace = data['device_traces'][0]
    spans = passes(data.get('external_annotations', []))
    live, total, best, best_at = {}, 0, -1, None
    states = []
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            live[e['addr']] = (e['size'], unit_at(spans, e['time_us']))
            total += e['size']
        elif e['action'] == 'free_completed' and e['addr'] in live:
            total -= live.pop(e['addr'])[0]
        if a.event is None and total > best:
            best, best_at, states = total, i, dict(live)
        if a.event == i:
            best_at, states = i, dict(live)
    by_unit, outside = {}, 0
    for size, unit in states.values():
        if unit is None:
            outside += size
        else:
            by_unit[unit] = by_unit.get(unit, 0) + size
    print(json.dumps({'units': by_unit, 'outside': outside, 'event': best_at}))


if __name__ == '__main__':
    main()
