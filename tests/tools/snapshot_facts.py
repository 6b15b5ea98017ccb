#!/usr/bin/env python3
"""Independent oracle for the tests: reads a snapshot with CPython's own pickle module
(trusted corpus files only) and prints plain facts as JSON, computed without memlens."""
import collections
import gzip
import json
import pickle
import sys


def open_any(path):
    with open(path, 'rb') as f:
        magic = f.read(4)
    if magic == b'\x28\xb5\x2f\xfd':
        import subprocess
        return pickle.loads(subprocess.run(['zstd', '-dc', path], check=True, capture_output=True).stdout)
    if magic[:2] == b'\x1f\x8b':
        return pickle.load(gzip.open(path, 'rb'))
    return pickle.load(open(path, 'rb'))


def repeated_as_torch_writes(entries, shift):
    """Copies of trace entries with times shifted, holding what torch would make anew for
    them: each alloc's frame list (its frees share it, as in torch's dump) and each
    compile_context string. Plain dict copies would share them with the originals, and the
    pickle would write a memo reference where torch writes the list or string again."""
    lists = {}
    out = []
    for e in entries:
        c = dict(e, time_us=e['time_us'] + shift)
        frames = e.get('frames')
        if isinstance(frames, list):
            if id(frames) not in lists:
                lists[id(frames)] = (frames, list(frames))  # the original kept alive: ids stay unique
            c['frames'] = lists[id(frames)][1]
        context = e.get('compile_context')
        if isinstance(context, str) and len(context) > 1:
            c['compile_context'] = context.encode().decode()  # an equal string, another object
        out.append(c)
    return out


def main(path):
    data = open_any(path)
    devices = []
    for d, trace in enumerate(data.get('device_traces', [])):
        actions = collections.Counter(e['action'] for e in trace)
        devices.append({
            'device': d,
            'entries': len(trace),
            'actions': dict(actions),
            'alloc_bytes': sum(e['size'] for e in trace if e['action'] == 'alloc'),
            'first_time_us': trace[0].get('time_us') if trace else None,
            'last_time_us': trace[-1].get('time_us') if trace else None,
            'distinct_stacks': len({tuple((f['name'], f['filename'], f['line']) for f in e.get('frames', []))
                                    for e in trace}),
        })
    segments = data['segments'] if isinstance(data, dict) else data
    print(json.dumps({
        'devices': devices,
        'segments': len(segments),
        'blocks': sum(len(s['blocks']) for s in segments),
        'reserved': sum(s['total_size'] for s in segments),
        'phase_marks': len(data.get('external_annotations', [])) if isinstance(data, dict) else 0,
    }))


if __name__ == '__main__':
    main(sys.argv[1])
