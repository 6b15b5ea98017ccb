#!/usr/bin/env python3
"""Builds a large profiler trace from a corpus one, for benchmarks: the traceEvents are written
again and again with shifted timestamps (streamed, so this needs little memory).

    make_large_trace.py SOURCE.pt.trace.json.gz OUT.json --bytes 1000000000 [--indent N] [--tricky]
        [--keys-reversed] [--late-keys]

--indent writes each event pretty-printed over several lines; --tricky adds, every 10 events,
events whose strings hold "}, {" and whose args nest objects before more keys, and once an event
of 10 MB whose name is all "}, {" (the places a reader that cuts the list into batches could cut
wrongly).
--keys-reversed writes each event's keys in reverse order ("args" before "name", "cat", "ph");
--late-keys gives every 7th event a second "name" or "cat" after its others, which JSON readers
take over the first (an operator becomes aten::mm, a kernel a cpu_op, an instant event a
[memory] one): where a reader decides from the first what of the rest to read.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from trace_facts import load_json  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--bytes', type=int, default=1_000_000_000)
    ap.add_argument('--indent', type=int, default=None)
    ap.add_argument('--tricky', action='store_true')
    ap.add_argument('--keys-reversed', action='store_true')
    ap.add_argument('--late-keys', action='store_true')
    args = ap.parse_args()
    data = load_json(args.source)
    events = data.pop('traceEvents')
    ts = [e['ts'] for e in events if 'ts' in e]
    span = max(ts) - min(ts) + 1000.0

    def dumps(e):
        if args.keys_reversed:
            e = dict(reversed(list(e.items())))
        return json.dumps(e, indent=args.indent)

    def late(e, text):
        if e.get('ph') == 'X':
            extra = '"name": "aten::mm"' if e.get('cat') == 'cpu_op' else '"cat": "cpu_op"'
        elif e.get('ph') == 'i':
            extra = '"name": "[memory]"'
        else:
            return text
        return text.rstrip()[:-1] + ', ' + extra + '}'

    if args.tricky:
        tricky = [{'ph': 'X', 'cat': 'cpu_op', 'name': 'weird }, { name', 'pid': 1, 'tid': 1, 'ts': events[0].get('ts', 0), 'dur': 1.5,
                   'args': {'nested': {'a': [{'b': '}, {'}, {'c': 1}]}, 'after': '\\"}, {"', 'Ev Idx': 1}},
                  {'ph': 'i', 'cat': 'cpu_instant_event', 'name': '[memory]', 'pid': 1, 'tid': 'thread "}, {" name', 's': 't',
                   'ts': events[0].get('ts', 0), 'args': {'Total Reserved': 2097152, 'Device Id': 0, 'Addr': 139771387904000, 'extra': {'x': {}},
                                                          'Bytes': 512, 'Total Allocated': 512, 'Device Type': 1}}]
        # One event longer than a batch, its string all "}, {": every cut tried inside it fails.
        huge = dict(tricky[0], name='}, {' * 2_700_000)
        mixed = [huge]
        for i, e in enumerate(events):
            mixed.append(e)
            if i % 10 == 9:
                mixed.extend(tricky)
        events = mixed
    late_at = [args.late_keys and i % 7 == 3 for i in range(len(events))]
    encoded = [late(e, dumps(e)) if is_late else dumps(e) for e, is_late in zip(events, late_at)]
    with open(args.out, 'w') as out:
        head = json.dumps(data)
        out.write(head[:-1] + ', "traceEvents": [\n')
        written, shift, first = 0, 0.0, True
        while written < args.bytes:
            for e, text, is_late in zip(events, encoded, late_at):
                if 'ts' in e and shift:
                    e2 = dict(e)
                    e2['ts'] = e['ts'] + shift
                    text = late(e2, dumps(e2)) if is_late else dumps(e2)
                out.write(('' if first else ',\n') + text)
                first = False
                written += len(text) + 2
            shift += span
        out.write('\n]}\n')
    print(f'{args.out}: {os.path.getsize(args.out)} bytes')


if __name__ == '__main__':
    main()
