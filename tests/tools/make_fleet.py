#!/usr/bin/env python3
"""make_fleet.py SOURCE OUTDIR --ranks R --every K --window W [--dumps D]: the dumps of a
distributed job with R ranks, each calling torch.cuda.memory._dump_snapshot() every K steps, in
torchtitan's layout OUTDIR/iteration_N/rankR_memory_snapshot.pickle.

Rank 0's dumps are cut from one real run (cut_dumps.py: the newest W entries before each dump and
the allocator state there); every other rank is a copy of them, perturbed the way fleets differ:
- rank 1 is an outlier: 2 GiB more held the whole run (a prefetch buffer, train.py:120);
- ranks 3, 7, 11, … leak 64 MiB per dump (train.py:88:cache_outputs), never freed;
- rank 2 runs out of memory in its last dump: an `oom` entry asking for 4 GiB ends its trace.
The extra memory is in segments of its own, as blocks alive before each dump's window, so every
dump stays consistent (its trace replays onto its segments). Prints the fleet's manifest as JSON:
the dumps (file, rank, step) and which ranks play which part."""
import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile

GIB = 1 << 30
MIB = 1 << 20
OUTLIER_RANK, OOM_RANK = 1, 2
OUTLIER_BYTES, LEAK_BYTES, OOM_REQUEST = 2 * GIB, 64 * MIB, 4 * GIB


def is_leak_rank(rank):
    return rank % 4 == 3


def frame(filename, line, name):
    return {'filename': filename, 'line': line, 'name': name}


def held_segment(address, sizes, frames):
    """A segment at `address` holding one active block per size, all alive before the trace."""
    blocks, cursor = [], address
    for size in sizes:
        blocks.append({'address': cursor, 'size': size, 'requested_size': size, 'state': 'active_allocated', 'frames': frames})
        cursor += size
    total = cursor - address
    return {'device': 0, 'address': address, 'total_size': total, 'allocated_size': total, 'active_size': total,
            'requested_size': total, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
            'is_expandable': False, 'frames': frames, 'blocks': blocks}


def perturbed(base, rank, dump_index, last_dump):
    """Rank `rank`'s copy of rank 0's dump number `dump_index`."""
    dump = dict(base)
    segments = list(base['segments'])
    top = max(s['address'] + s['total_size'] for s in segments) if segments else 1 << 40
    free_address = (top + GIB) // GIB * GIB + GIB
    if rank == OUTLIER_RANK:
        segments.append(held_segment(free_address, [OUTLIER_BYTES], [frame('train.py', 120, 'prefetch_batches')]))
        free_address += 2 * OUTLIER_BYTES
    if is_leak_rank(rank):
        segments.append(held_segment(free_address, [LEAK_BYTES] * (dump_index + 1), [frame('train.py', 88, 'cache_outputs')]))
    dump['segments'] = segments
    if rank == OOM_RANK and last_dump:
        trace = list(base['device_traces'][0])
        last = trace[-1]
        trace.append({'action': 'oom', 'addr': 512 * MIB, 'size': OOM_REQUEST, 'stream': 0,
                      'time_us': last['time_us'] + 1, 'frames': [frame('train.py', 64, 'forward')]})
        dump['device_traces'] = [trace]
    return dump


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('outdir')
    ap.add_argument('--ranks', type=int, required=True)
    ap.add_argument('--every', type=int, required=True)
    ap.add_argument('--window', type=int, required=True)
    ap.add_argument('--dumps', type=int, default=0, help='at most this many dumps per rank (0: all)')
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as base_dir:
        lines = subprocess.run([sys.executable, os.path.join(here, 'cut_dumps.py'), args.source, base_dir, '--every',
                                str(args.every), '--window', str(args.window)], check=True, capture_output=True, text=True).stdout
        cuts = [json.loads(line) for line in lines.splitlines()]
        if args.dumps:
            cuts = cuts[:args.dumps]
        dumps = []
        for index, cut in enumerate(cuts):
            with open(cut['file'], 'rb') as f:
                base = pickle.load(f)
            folder = os.path.join(args.outdir, f"iteration_{cut['step']}")
            os.makedirs(folder, exist_ok=True)
            for rank in range(args.ranks):
                path = os.path.join(folder, f'rank{rank}_memory_snapshot.pickle')
                with open(path + '.tmp', 'wb') as f:
                    pickle.dump(perturbed(base, rank, index, index == len(cuts) - 1), f, protocol=4)
                os.replace(path + '.tmp', path)
                dumps.append({'file': path, 'rank': rank, 'step': cut['step']})
    json.dump({'dumps': dumps, 'outlier_rank': OUTLIER_RANK if args.ranks > OUTLIER_RANK else None,
               'oom_rank': OOM_RANK if args.ranks > OOM_RANK else None,
               'leak_ranks': [r for r in range(args.ranks) if is_leak_rank(r)],
               'outlier_bytes': OUTLIER_BYTES, 'leak_bytes_per_dump': LEAK_BYTES, 'oom_request': OOM_REQUEST}, sys.stdout)
    print()


if __name__ == '__main__':
    main()
