#!/usr/bin/env python3
"""Adds two private memory pools to a corpus snapshot, as serving and graph-captured jobs have
them, and prints the segments' own sums per segment_pool_id (JSON), computed here from the file:

    make_private_pools.py SOURCE OUT [--kv-gib N] [--megatron-gib N] [--second-device]

  - pool (0, 1): a KV cache of N GiB (default 22) in one segment reserved by vLLM's sleep-mode
    allocator (vllm/device_allocator/cumem.py), one allocation filling it;
  - pool (1, 0): a CUDA graph's private pool (torch/cuda/graphs.py), one 40 MiB segment with two
    8 MiB allocations, one of them freed again.
--megatron-gib N adds pool (0, 2): Megatron's DDP buffers of N GiB in a torch.cuda.MemPool, as
its NCCL user-buffer registration makes them (megatron/core/distributed/param_and_grad_buffer.py,
_ParamAndGradBuffer.__init__): bf16 `param_data` at line 721 and fp32 `grad_data` at line 728
for the dense parameters, and again for the expert parameters (a quarter of the size), one
segment each. The printed JSON then also has "megatron": the bytes of the parameter and the
gradient buffers, and "kv_cache": the KV cache's bytes. --no-distributed-optimizer leaves out
`param_data`, as Megatron does without its distributed optimizer.
Each reservation and allocation is a trace entry with its pool_id, made after the source's last
entry; the final segments list them, so the trace and the final state agree.
--second-device also copies the source's trace and segments to device 1 and gives device 1 an
OOM entry at its end: the device that ran out of memory is then not device 0.
"""
import argparse
import copy
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from snapshot_facts import open_any  # noqa: E402

MiB = 1 << 20
KV_ADDR = 0x7a0000000000
GRAPH_ADDR = 0x7b0000000000


def frames(*entries):
    return [{'filename': f, 'line': line, 'name': name} for f, line, name in entries]


def entry(action, addr, size, t, pool, stack):
    return {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': t, 'compile_context': 'N/A',
            'user_metadata': '', 'pool_id': pool, 'frames': stack}


def megatron_buffers(gib, t, param_buffers=True):
    """Megatron's param and grad buffers in pool (0, 2): (segments, {parameter, gradient bytes})."""
    def site(line):
        return frames(('/opt/megatron-lm/megatron/core/distributed/param_and_grad_buffer.py', line, '__init__'),
                      ('/opt/megatron-lm/megatron/core/distributed/distributed_data_parallel.py', 205, '_allocate_buffers_for_parameters'),
                      ('/opt/megatron-lm/megatron/core/distributed/distributed_data_parallel.py', 281, '__init__'),
                      ('/opt/megatron-lm/megatron/training/training.py', 640, 'get_model'),
                      ('/srv/pretrain_gpt.py', 312, 'main'))
    total = gib << 30
    segments, sums = [], {'parameter': 0, 'gradient': 0}
    addr = 0x7c0000000000
    for numel in (total // 6 * 4 // 5, total // 6 // 5):  # dense, then expert: 2 + 4 bytes per value
        for line, width, kind in ((721, 2, 'parameter'), (728, 4, 'gradient'))[0 if param_buffers else 1:]:
            size = (numel * width + (2 << 20) - 1) // (2 << 20) * (2 << 20)
            stack = site(line)
            segments.append({'device': 0, 'address': addr, 'total_size': size, 'allocated_size': size, 'active_size': size,
                             'requested_size': size, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 2),
                             'is_expandable': False, 'frames': stack, 'time_us': t,
                             'blocks': [{'address': addr, 'size': size, 'requested_size': size, 'state': 'active_allocated', 'frames': stack}]})
            sums[kind] += size
            addr += size
            t += 2
    return segments, sums


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--kv-gib', type=int, default=22)
    ap.add_argument('--megatron-gib', type=int, default=0)
    ap.add_argument('--no-distributed-optimizer', action='store_true')
    ap.add_argument('--second-device', action='store_true')
    args = ap.parse_args()
    data = open_any(args.source)
    trace = data['device_traces'][0]
    t = trace[-1]['time_us'] + 1
    kv = args.kv_gib << 30
    sleep = frames(('/venv/lib/python3.12/site-packages/vllm/device_allocator/cumem.py', 212, 'use_memory_pool'),
                   ('/venv/lib/python3.12/site-packages/vllm/worker/gpu_worker.py', 301, 'initialize_cache'),
                   ('/srv/serve.py', 40, 'main'))
    graph = frames(('/venv/lib/python3.12/site-packages/torch/cuda/graphs.py', 186, 'capture_begin'),
                   ('/venv/lib/python3.12/site-packages/torch/cuda/graphs.py', 240, '__enter__'),
                   ('/srv/serve.py', 61, 'capture'))
    added = [entry('segment_alloc', KV_ADDR, kv, t, (0, 1), sleep),
             entry('alloc', KV_ADDR, kv, t + 1, (0, 1), sleep),
             entry('segment_alloc', GRAPH_ADDR, 40 * MiB, t + 2, (1, 0), graph),
             entry('alloc', GRAPH_ADDR, 8 * MiB, t + 3, (1, 0), graph),
             entry('alloc', GRAPH_ADDR + 8 * MiB, 8 * MiB, t + 4, (1, 0), graph),
             entry('free_requested', GRAPH_ADDR + 8 * MiB, 8 * MiB, t + 5, (1, 0), graph),
             entry('free_completed', GRAPH_ADDR + 8 * MiB, 8 * MiB, t + 6, (1, 0), graph)]
    megatron_segments, megatron = megatron_buffers(args.megatron_gib, t + 7, not args.no_distributed_optimizer) if args.megatron_gib else ([], {})
    added += [e for s in megatron_segments for e in (entry('segment_alloc', s['address'], s['total_size'], s['time_us'], (0, 2), s['frames']),
                                                      entry('alloc', s['address'], s['total_size'], s['time_us'] + 1, (0, 2), s['frames']))]
    for s in megatron_segments:
        del s['time_us']
    trace.extend(added)
    segments = [s for s in data['segments'] if s.get('device', 0) == 0] + megatron_segments
    segments.append({'device': 0, 'address': KV_ADDR, 'total_size': kv, 'allocated_size': kv, 'active_size': kv,
                     'requested_size': kv, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 1),
                     'is_expandable': False, 'frames': sleep,
                     'blocks': [{'address': KV_ADDR, 'size': kv, 'requested_size': kv, 'state': 'active_allocated', 'frames': sleep}]})
    segments.append({'device': 0, 'address': GRAPH_ADDR, 'total_size': 40 * MiB, 'allocated_size': 8 * MiB,
                     'active_size': 8 * MiB, 'requested_size': 8 * MiB, 'stream': 0, 'segment_type': 'large',
                     'segment_pool_id': (1, 0), 'is_expandable': False, 'frames': graph,
                     'blocks': [{'address': GRAPH_ADDR, 'size': 8 * MiB, 'requested_size': 8 * MiB, 'state': 'active_allocated', 'frames': graph},
                                {'address': GRAPH_ADDR + 8 * MiB, 'size': 32 * MiB, 'requested_size': 0, 'state': 'inactive', 'frames': []}]})
    if args.second_device:
        other = copy.deepcopy(trace[:-len(added)])
        other.append({'action': 'oom', 'device_free': 2 * MiB, 'size': 1 << 30, 'stream': 0, 'time_us': t + 10,
                      'compile_context': 'N/A', 'user_metadata': '', 'pool_id': (0, 0), 'frames': []})
        data['device_traces'] = [trace, other]
        for s in [s for s in data['segments'] if s.get('device', 0) == 0]:
            copied = copy.deepcopy(s)
            copied['device'] = 1
            segments.append(copied)
    data['segments'] = segments
    with open(args.out + '.tmp', 'wb') as f:
        pickle.dump(data, f, protocol=4)
    os.replace(args.out + '.tmp', args.out)
    sums = {}
    for s in segments:
        if s.get('device', 0) != 0:
            continue
        key = '%d,%d' % tuple(s.get('segment_pool_id', (0, 0)))
        p = sums.setdefault(key, {'segments': 0, 'reserved_bytes': 0, 'allocated_bytes': 0})
        p['segments'] += 1
        p['reserved_bytes'] += s['total_size']
        p['allocated_bytes'] += s['allocated_size']
    if args.megatron_gib:
        sums['megatron'] = megatron
        sums['kv_cache'] = kv
    print(json.dumps(sums))


if __name__ == '__main__':
    main()
