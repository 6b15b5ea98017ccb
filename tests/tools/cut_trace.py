#!/usr/bin/env python3
"""cut_trace.py IN OUT FRACTION: the snapshot as torch writes it when its trace ring buffer
(max_entries) overflowed - each device's oldest entries gone, keeping the newest FRACTION of
them; segments and blocks untouched. OUT is an uncompressed pickle."""
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402


def main(source, out, fraction):
    data = open_any(source)
    data['device_traces'] = [trace[len(trace) - int(len(trace) * fraction):] for trace in data['device_traces']]
    with open(out, 'wb') as f:
        pickle.dump(data, f, protocol=4)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]))
