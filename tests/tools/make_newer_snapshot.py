#!/usr/bin/env python3
"""Rewrites a corpus snapshot the way torch main writes it in 2026 (docs/FORMATS-2026.md), and
prints what a correct reader must find in it, computed here by replaying the trace in Python.

    make_newer_snapshot.py SOURCE OUTDIR [POOL_MIB]

OUTDIR/newer.pickle (protocol 4) and newer_p5.pickle (protocol 5) carry:
  - pool_id on every entry, and a MemPool (0, 1) with its own segment (POOL_MIB, default 20),
    three allocations of a fifth of it and one of them freed;
  - annotate entries: two labels on the largest allocation live at the peak, one on the second
    and third; "stale" on an allocation whose address a later allocation live at the peak reuses,
    which is labelled "fresh" (a new alloc at an address starts afresh);
  - user_metadata (JSON text) and compile_context on the second and third, FX frame fields on the
    largest one's first frame, forward_frames and internal_metadata on other entries;
  - allocator_settings keys of 2026, and pinned host memory (host_segments, host_traces).
OUTDIR/no_pool_ids.pickle is newer.pickle without pool_id on its entries, as CUDA-graph files
from before 2026 are: the pool must come from the final segments.
OUTDIR/truncated.pickle keeps the last 10,000 entries of the original trace, as a ring buffer of
max_entries=10000 would.
"""
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402

MIB = 1 << 20
POOL = (0, 1)
POOL_BASE = 0x7e0000000000  # below every address the corpus runs use
HOST_BASE = 0x7f0000000000
FX_FRAME = {'filename': '/tmp/torchinductor_root/fx_generated_3f2a.py', 'line': 12, 'name': 'forward',
            'fx_node_op': 'call_function', 'fx_node_name': 'addmm_1', 'fx_node_target': 'aten.addmm.default',
            'fx_original_trace': '  File "/srv/model.py", line 10, in forward\n    a = self.net1(x)\n'}


def replay(trace):
    """Pairs allocs with free_completed by address: (lifetimes, peak index, live ids at the peak)."""
    open_at, lives, active, peak, peak_at = {}, [], 0, -1, None
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            lives.append({'alloc': i, 'addr': e['addr'], 'size': e['size'], 'free': None})
            open_at[e['addr']] = len(lives) - 1
            active += e['size']
            if active > peak:
                peak, peak_at = active, i
        elif e['action'] == 'free_completed' and e['addr'] in open_at:
            life = lives[open_at.pop(e['addr'])]
            life['free'] = i
            active -= life['size']
    live = [k for k, l in enumerate(lives) if l['alloc'] <= peak_at and (l['free'] is None or l['free'] > peak_at)]
    return lives, peak_at, live


def entry(action, addr, size, time_us, pool=(0, 0), frames=None, **extra):
    e = {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': time_us,
         'compile_context': 'N/A', 'user_metadata': '', 'pool_id': pool}
    if frames is not None:
        e['frames'] = frames
    e.update(extra)
    return e


def newer(data, pool_mib):
    trace = data['device_traces'][0]
    lives, peak_at, live = replay(trace)
    by_size = sorted(live, key=lambda k: (-lives[k]['size'], lives[k]['addr']))
    first, second, third = (lives[k] for k in by_size[:3])
    # An allocation live at the peak at an address an earlier, freed allocation used.
    reused = next(lives[k] for k in by_size[3:]
                  if any(l['addr'] == lives[k]['addr'] and l['free'] is not None and l['free'] < lives[k]['alloc'] for l in lives))
    earlier = max((l for l in lives if l['addr'] == reused['addr'] and l['free'] is not None and l['free'] < reused['alloc']),
                  key=lambda l: l['alloc'])
    labels = {first['alloc']: ['kv cache', 'packed into autograd graph'], second['alloc']: ['logits'],
              third['alloc']: ['attention scores'], earlier['alloc']: ['stale'], reused['alloc']: ['fresh']}
    metadata = {second['alloc']: '{"phase":"fwd","layer":3}'}
    compiled = {third['alloc']: 'Torch-Compiled Region: 0/0'}
    for i, e in enumerate(trace):
        e['pool_id'] = (0, 0)
        if i in metadata:
            e['user_metadata'] = metadata[i]
        if i in compiled:
            e['compile_context'] = compiled[i]
        if i == first['alloc']:
            e['frames'] = [dict(FX_FRAME)] + e.get('frames', [])
    # Anomaly mode's forward traceback on the first free_requested, an internal tag on the first free_completed.
    next(e for e in trace if e['action'] == 'free_requested')['forward_frames'] = [
        '  File "/srv/model.py", line 10, in forward\n', '    a = self.net1(x)\n']
    next(e for e in trace if e['action'] == 'free_completed')['internal_metadata'] = 'mallocWithAddress'
    out = []
    for i, e in enumerate(trace):
        out.append(e)
        for text in labels.get(i, []):
            out.append(entry('annotate', e['addr'], e['size'], e['time_us'], frames=[
                {'filename': '/srv/train.py', 'line': 42, 'name': 'pack_hook'}], user_metadata=text))
    # A MemPool: one segment, three allocations of a fifth of it, the second freed.
    t0 = trace[0]['time_us']
    seg_size = pool_mib * MIB
    part = seg_size // 5
    pool_frames = [{'filename': '/srv/train.py', 'line': 77, 'name': 'capture'}]
    pool_entries = [entry('segment_alloc', POOL_BASE, seg_size, t0, POOL, pool_frames)]
    for k in range(3):
        pool_entries.append(entry('alloc', POOL_BASE + k * part, part, t0, POOL, pool_frames))
    pool_entries += [entry('free_requested', POOL_BASE + part, part, t0, POOL, pool_frames),
                     entry('free_completed', POOL_BASE + part, part, t0, POOL, pool_frames)]
    data['device_traces'][0] = pool_entries + out
    blocks = [{'address': POOL_BASE, 'size': part, 'requested_size': part, 'state': 'active_allocated', 'frames': pool_frames},
              {'address': POOL_BASE + part, 'size': part, 'requested_size': 0, 'state': 'inactive', 'frames': []},
              {'address': POOL_BASE + 2 * part, 'size': part, 'requested_size': part, 'state': 'active_allocated', 'frames': pool_frames},
              {'address': POOL_BASE + 3 * part, 'size': seg_size - 3 * part, 'requested_size': 0, 'state': 'inactive', 'frames': []}]
    data['segments'].insert(0, {'device': 0, 'address': POOL_BASE, 'total_size': seg_size, 'allocated_size': 2 * part,
                                'active_size': 2 * part, 'requested_size': 2 * part, 'stream': 0, 'segment_type': 'large',
                                'segment_pool_id': POOL, 'is_expandable': False, 'frames': pool_frames, 'blocks': blocks})
    data['allocator_settings'].update({'max_round_threshold': 1048576, 'max_cached_size': 0,
                                       'graph_capture_record_stream_reuse': False})
    # Pinned host memory: 2 MiB kept, 8 MiB used and released, 1 MiB kept.
    host_frames = [{'filename': '/srv/data.py', 'line': 18, 'name': 'pin_memory'}]
    host = []
    for addr, size, freed in ((HOST_BASE, 2 * MIB, False), (HOST_BASE + 0x1000000, 8 * MIB, True), (HOST_BASE + 0x2000000, MIB, False)):
        host += [entry('segment_alloc', addr, size, t0, frames=host_frames), entry('alloc', addr, size, t0, frames=host_frames)]
        if freed:
            host += [entry('free_requested', addr, size, t0, frames=host_frames), entry('free_completed', addr, size, t0),
                     entry('segment_free', addr, size, t0)]
    for e in host:
        e['compile_context'] = e['user_metadata'] = ''
    data['host_traces'] = host
    data['host_segments'] = [
        {'device': -1, 'address': addr, 'total_size': size, 'allocated_size': size, 'active_size': size, 'requested_size': size,
         'stream': 0, 'segment_type': 'small', 'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': host_frames,
         'blocks': [{'address': addr, 'size': size, 'requested_size': size, 'state': 'active_allocated', 'frames': host_frames}]}
        for addr, size in ((HOST_BASE, 2 * MIB), (HOST_BASE + 0x2000000, MIB))]
    # The first trace entry's index moved by the pool's entries, and by the annotations before it.
    shift = {}
    k = len(pool_entries)
    for i in range(len(trace)):
        shift[i] = k
        k += 1 + len(labels.get(i, []))
    return {
        'labels': {str(shift[i]): v for i, v in labels.items() if i != earlier['alloc']},
        'user_metadata': {str(shift[i]): v for i, v in metadata.items()},
        'compile_context': {str(shift[i]): v for i, v in compiled.items()},
        'fx_alloc_index': shift[first['alloc']],
        'fx_bytes': first['size'],
        # Stacks grouped at the peak: bytes per value (allocations without one are left out).
        'groups_at_peak': {
            'compiled_region': {compiled[third['alloc']]: third['size']},
            'user_metadata': {metadata[second['alloc']]: second['size']},
            'label': {labels[a['alloc']][-1]: a['size'] for a in (first, second, third, reused)},
        },
        'annotate_entries': sum(len(v) for v in labels.values()),
        'pool': {'id': list(POOL), 'reserved_bytes': seg_size, 'active_bytes_at_end': 2 * part, 'peak_active_bytes': 3 * part,
                 'allocations': 3},
        'host': {'peak_active_bytes': 10 * MIB, 'peak_reserved_bytes': 10 * MIB, 'reserved_bytes': 3 * MIB,
                 'entries': len(host), 'segments': 2},
    }


def truncated(data, keep):
    """The last `keep` entries, and what a reader must call older than them."""
    trace = data['device_traces'][0][-keep:]
    data['device_traces'][0] = trace
    seen, open_at, ghosts, ghost_bytes, unseen_frees = set(), set(), 0, 0, 0
    for e in trace:
        a = e['action']
        if a == 'alloc':
            open_at.add(e['addr'])
            seen.add(e['addr'])
        elif a in ('free_requested', 'free_completed') and e['addr'] not in seen:
            # The first sign of an allocation older than the trace: one ghost, sized by that free.
            seen.add(e['addr'])
            ghosts += 1
            ghost_bytes += e['size']
            unseen_frees += 1
            if a == 'free_requested':
                open_at.add(e['addr'])
        if a == 'free_completed':
            open_at.discard(e['addr'])
    for seg in data['segments']:
        for b in seg['blocks']:
            if b['state'] in ('active_allocated', 'active_pending_free') and b['address'] not in open_at:
                ghosts += 1
                ghost_bytes += b['requested_size']
    return {'covers_from_time_us': trace[0]['time_us'], 'ghost_blocks': ghosts, 'ghost_bytes': ghost_bytes,
            'frees_never_allocated': unseen_frees, 'entries': len(trace)}


def main(source, outdir, pool_mib='20'):
    os.makedirs(outdir, exist_ok=True)
    data = open_any(source)
    facts = {'newer': newer(data, int(pool_mib))}
    for name, protocol in (('newer.pickle', 4), ('newer_p5.pickle', 5)):
        with open(os.path.join(outdir, name), 'wb') as f:
            pickle.dump(data, f, protocol=protocol)
    for trace in data['device_traces'] + [data['host_traces']]:
        for e in trace:
            e.pop('pool_id', None)
    with open(os.path.join(outdir, 'no_pool_ids.pickle'), 'wb') as f:
        pickle.dump(data, f, protocol=4)
    data = open_any(source)
    facts['truncated'] = truncated(data, 10000)
    with open(os.path.join(outdir, 'truncated.pickle'), 'wb') as f:
        pickle.dump(data, f, protocol=4)
    print(json.dumps(facts, indent=1))


if __name__ == '__main__':
    main(*sys.argv[1:])
