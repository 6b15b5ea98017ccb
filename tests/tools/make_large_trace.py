#!/usr/bin/env python3
"""Builds a large profiler trace from a corpus one, for benchmarks: the traceEvents are written
again and again with shifted timestamps (streamed, so this needs little memory).

    make_large_trace.py SOURCE.pt.trace.json.gz OUT.json --bytes 1000000000
"""
import argparse
import gzip
import json
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--bytes', type=int, default=1_000_000_000)
    args = ap.parse_args()
    opener = gzip.open if open(args.source, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(args.source, 'rt') as f:
        data = json.load(f)
    events = data.pop('traceEvents')
    ts = [e['ts'] for e in events if 'ts' in e]
    span = max(ts) - min(ts) + 1000.0
    encoded = [json.dumps(e) for e in events]
    with open(args.out, 'w') as out:
        head = json.dumps(data)
        out.write(head[:-1] + ', "traceEvents": [\n')
        written, shift, first = 0, 0.0, True
        while written < args.bytes:
            for e, text in zip(events, encoded):
                if 'ts' in e and shift:
                    e2 = dict(e)
                    e2['ts'] = e['ts'] + shift
                    text = json.dumps(e2)
                out.write(('' if first else ',\n') + text)
                first = False
                written += len(text) + 2
            shift += span
        out.write('\n]}\n')
    print(f'{args.out}: {os.path.getsize(args.out)} bytes')


if __name__ == '__main__':
    main()
