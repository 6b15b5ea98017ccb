#!/usr/bin/env python3
"""Writes the same snapshot in the other layouts memlens reads, for equivalence tests:
pickle protocols 2 and 5, JSON (plain and gzip), and the legacy layouts
(a bare list of segments; blocks carrying their stack in history[0])."""
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402
import pickle  # noqa: E402


def legacy_segments(data):
    segments = []
    for seg in data['segments']:
        seg = dict(seg)
        blocks = []
        for b in seg['blocks']:
            b = dict(b)
            frames = b.pop('frames', [])
            b['history'] = [{'addr': b.get('address', 0), 'real_size': b.pop('requested_size'), 'frames': frames}]
            blocks.append(b)
        seg['blocks'] = blocks
        segments.append(seg)
    return segments


def main(source, outdir):
    data = open_any(source)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'p2.pickle'), 'wb') as f:
        pickle.dump(data, f, protocol=2)
    with open(os.path.join(outdir, 'p5.pickle'), 'wb') as f:
        pickle.dump(data, f, protocol=5)
    with open(os.path.join(outdir, 'snapshot.json'), 'w') as f:
        json.dump(data, f)
    with gzip.open(os.path.join(outdir, 'snapshot.json.gz'), 'wt') as f:
        json.dump(data, f)
    with open(os.path.join(outdir, 'legacy_segments.pickle'), 'wb') as f:
        pickle.dump(legacy_segments(data), f, protocol=2)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
