#!/usr/bin/env python3
"""Independent oracle for the Segments-over-time page's allocation order: the stack of segments
MemoryViz's "Active Cached Segment Timeline" draws (torch/utils/viz/MemoryViz.js,
process_alloc_data with plot_segments, every element drawn, no private-pool envelopes), ported:
segments of the final snapshot the trace did not make and segments the trace frees without having
made them are there from the start (the list reversed, as MemoryViz does, then pushed), each
segment_alloc goes on top, each segment_free takes its segment out and lowers those above it.

memoryviz_segment_order.py FILE DEVICE prints a JSON list: for each trace entry that is a
segment_alloc or segment_free (and first the first entry, when it is neither: the segments from
before the trace), {"index": its position in the trace, "stack": [[address, size], ...] bottom to
top after it}."""
import json
import sys

from snapshot_facts import open_any


def main(path, device):
    snapshot = open_any(path)
    trace = snapshot['device_traces'][device]
    elements, initially, actions, addr_to_alloc = [], [], [], {}
    for i, e in enumerate(trace):
        if e['action'] == 'segment_alloc':
            elements.append(e)
            addr_to_alloc[e['addr']] = len(elements) - 1
            actions.append((i, len(elements) - 1))
        elif e['action'] == 'segment_free':
            if e['addr'] in addr_to_alloc:
                actions.append((i, addr_to_alloc.pop(e['addr'])))
            else:
                elements.append(e)
                initially.append(len(elements) - 1)
                actions.append((i, len(elements) - 1))
    for seg in snapshot['segments']:
        if seg['device'] == device and seg['address'] not in addr_to_alloc:
            elements.append({'addr': seg['address'], 'size': seg['total_size']})
            initially.append(len(elements) - 1)
    initially.reverse()
    current = list(initially)
    out = []
    if trace and trace[0]['action'] not in ('segment_alloc', 'segment_free'):
        # Before the first segment action: what MemoryViz finds there from before the trace.
        out.append({'index': 0, 'stack': [[elements[c]['addr'], elements[c]['size']] for c in current]})
    for index, elem in actions:
        if elem in current:
            current.remove(elem)
        else:
            current.append(elem)
        out.append({'index': index, 'stack': [[elements[c]['addr'], elements[c]['size']] for c in current]})
    print(json.dumps(out))


if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]))
