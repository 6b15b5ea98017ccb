#!/usr/bin/env python3
"""Rewrites a torch.profiler Chrome trace as torch <= 1.9 wrote it: `[memory]` events carry
`Bytes` but no `Addr`, `Total Allocated` or `Total Reserved`, and every CPU range, operators and
record_function ranges alike (ProfilerStep#N, Optimizer.step#…), has `cat: "Operator"`, and
there are no Python functions' events (the Python tracer came later). Prints, per device name, the
honest figures such a file allows, computed here without memlens: the running sum of `Bytes` in
time order, plus the blocks that must have existed before the first event (per size, the frees
beyond the allocations of that size seen so far). Its peak is that sum's maximum.

make_old_trace.py TRACE.json.gz OUT.json"""
import collections
import gzip
import json
import sys


def main(src, out):
    trace = json.load(gzip.open(src) if src.endswith('.gz') else open(src))
    per_device = collections.defaultdict(list)
    trace['traceEvents'] = [e for e in trace['traceEvents'] if e.get('cat') != 'python_function']
    for order, e in enumerate(trace['traceEvents']):
        if e.get('cat') in ('cpu_op', 'user_annotation'):
            e['cat'] = 'Operator'
        if e.get('name') != '[memory]':
            continue
        args = e['args']
        for key in ('Addr', 'Total Allocated', 'Total Reserved'):
            args.pop(key, None)
        name = 'cuda:%d' % args['Device Id'] if args.get('Device Type') == 1 else 'cpu'
        per_device[name].append((e['ts'], order, args['Bytes']))
    json.dump(trace, open(out, 'w'))
    facts = {}
    for name, events in per_device.items():
        events.sort()
        running = peak = 0
        open_by_size = collections.Counter()
        before = 0
        for _, _, b in events:
            if b >= 0:
                open_by_size[b] += 1
            elif open_by_size[-b] > 0:
                open_by_size[-b] -= 1
            else:
                before += -b
            running += b
            peak = max(peak, running)
        facts[name] = {'events': len(events), 'before_bytes': before, 'peak_bytes': before + peak}
    print(json.dumps(facts))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
