#!/usr/bin/env python3
"""Independent oracle for the allocator figures: the allocator state after given events, by the
logic of MemoryViz's MemoryView (torch/utils/viz/MemoryViz.js, simulate_memory), ported line by
line: start from the final snapshot's segments and blocks and undo the trace from its newest entry
back to the event. Unmapping is undone by mapping with merge into the neighbours of the same
stream, mapping by unmapping (shrinking or splitting the segment that holds the range).

memoryviz_state.py FILE DEVICE EVENT... prints a JSON list, one object per event (`-1`: before
the first entry), with the keys of `summary --at --json`'s `allocator`. Block sizes: a block of
the final snapshot keeps its size, a block the trace recreates is its request rounded to 512
bytes as the allocator rounds it (MemoryViz itself draws the request)."""
import json
import sys

from snapshot_facts import open_any


def rounded(size):
    return 512 if size < 512 else (size + 511) // 512 * 512


def simulate(snapshot, device, idx):
    return simulate_many(snapshot, device, [idx])[idx]


def simulate_many(snapshot, device, indices):
    """{event: (segments, blocks)} after each of `indices`, in one pass back through the trace."""
    segments = []
    blocks = {}
    for seg in snapshot['segments']:
        if seg['device'] != device:
            continue
        segments.append({'addr': seg['address'], 'size': seg['total_size'], 'stream': seg['stream']})
        addr = seg['address']
        for b in seg['blocks']:
            b_addr = b.get('address', addr)
            addr = b_addr + b['size']
            if b['state'] not in ('active_allocated', 'active_pending_free', 'active_awaiting_free'):
                continue
            blocks[b_addr] = {'addr': b_addr, 'size': b['size'], 'requested': b['requested_size']}
    segments.sort(key=lambda s: s['addr'])

    def map_segment(merge, seg):
        i = next((k for k, e in enumerate(segments) if e['addr'] > seg['addr']), -1)
        if not merge:
            segments.insert(i if i >= 0 else len(segments), seg)
            return
        if i == -1:
            i = len(segments)
        segments.insert(i, seg)
        if i + 1 < len(segments):
            nxt = segments[i + 1]
            if seg['addr'] + seg['size'] == nxt['addr'] and seg['stream'] == nxt['stream']:
                seg['size'] += nxt['size']
                del segments[i + 1]
        if i > 0:
            prev = segments[i - 1]
            if prev['addr'] + prev['size'] == seg['addr'] and prev['stream'] == seg['stream']:
                prev['size'] += seg['size']
                del segments[i]

    def unmap_segment(merge, seg):
        if not merge:
            k = next(k for k, x in enumerate(segments) if x['addr'] == seg['addr'])
            del segments[k]
            return
        seg_end = seg['addr'] + seg['size']
        k = next(k for k, e in enumerate(segments) if e['addr'] <= seg['addr'] and seg_end <= e['addr'] + e['size'])
        existing = segments[k]
        existing_end = existing['addr'] + existing['size']
        if existing['addr'] == seg['addr']:
            existing['addr'] += seg['size']
            existing['size'] -= seg['size']
            if existing['size'] == 0:
                del segments[k]
        elif existing_end == seg_end:
            existing['size'] -= seg['size']
        else:
            existing['size'] = seg['addr'] - existing['addr']
            seg['addr'] = seg_end
            seg['size'] = existing_end - seg_end
            segments.insert(k + 1, seg)

    events = snapshot['device_traces'][device] if device < len(snapshot['device_traces']) else []

    def undo(e):
        a = e['action']
        if a == 'free_completed':
            blocks[e['addr']] = {'addr': e['addr'], 'size': rounded(e['size']), 'requested': e['size']}
        elif a == 'alloc':
            blocks.pop(e['addr'], None)
        elif a in ('segment_free', 'segment_unmap'):
            map_segment(a == 'segment_unmap', {'addr': e['addr'], 'size': e['size'], 'stream': e['stream']})
        elif a in ('segment_alloc', 'segment_map'):
            unmap_segment(a == 'segment_map', {'addr': e['addr'], 'size': e['size'], 'stream': e['stream']})

    states = {}
    i = len(events) - 1
    for idx in sorted(set(indices), reverse=True):
        while i > idx:
            undo(events[i])
            i -= 1
        states[idx] = ([dict(s) for s in segments], [dict(b) for b in blocks.values()])
    return states


def figures(segments, blocks):
    segments = sorted(segments, key=lambda s: s['addr'])
    blocks = sorted(blocks, key=lambda b: b['addr'])
    reserved = sum(s['size'] for s in segments)
    allocated = requested = largest = 0
    j = 0
    for s in segments:
        end = s['addr'] + s['size']
        cursor = s['addr']
        while j < len(blocks) and blocks[j]['addr'] < s['addr']:
            j += 1  # outside every segment: not drawn (MemoryViz would fail on it)
        while j < len(blocks) and blocks[j]['addr'] < end:
            b = blocks[j]
            largest = max(largest, b['addr'] - cursor)
            allocated += b['size']
            requested += b['requested']
            cursor = b['addr'] + b['size']
            j += 1
        largest = max(largest, end - cursor)
    return {'segments': len(segments), 'reserved_bytes': reserved, 'allocated_bytes': allocated,
            'requested_bytes': requested, 'free_bytes': reserved - allocated, 'largest_free_bytes': largest}


def main(path, device, indices):
    snapshot = open_any(path)
    if isinstance(snapshot, list):
        snapshot = {'segments': snapshot, 'device_traces': []}
    print(json.dumps([figures(*simulate(snapshot, device, idx)) for idx in indices]))


if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]])
