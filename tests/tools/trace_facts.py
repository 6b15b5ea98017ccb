#!/usr/bin/env python3
"""Independent oracle for profiler traces: counts [memory] events per device and reads the
allocator totals they carry, with nothing but the json module."""
import gzip
import json
import sys


def load_json(path):
    """A JSON file, gzip-compressed or not (the other tools read traces through this too)."""
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt') as f:
        return json.load(f)


def main(path):
    data = load_json(path)
    devices = {}
    for e in data['traceEvents']:
        if e.get('name') != '[memory]':
            continue
        a = e['args']
        key = 'cuda:%d' % a['Device Id'] if a.get('Device Type') == 1 else 'cpu'
        devices.setdefault(key, []).append((e['ts'], a['Bytes'], a.get('Total Allocated', 0), a.get('Total Reserved', 0)))
    out = {}
    for key, events in devices.items():
        events.sort(key=lambda x: x[0])  # stable: equal times keep file order
        out[key] = {
            'events': len(events),
            'allocs': sum(1 for e in events if e[1] >= 0),
            'peak_total_allocated': max(e[2] for e in events),
            'final_total_allocated': events[-1][2],
            'final_total_reserved': events[-1][3],
        }
    print(json.dumps(out))


if __name__ == '__main__':
    main(sys.argv[1])
