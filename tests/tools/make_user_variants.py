#!/usr/bin/env python3
"""Writes a corpus run as users record theirs: without the forward / backward / optimizer
record_function marks our recording script (tests/corpus/gen) added, which no user's file carries.

    make_user_variants.py SOURCE OUT --marks torch|none [--rename NAME] [--forward-oom]
                          [--context-alloc] [--no-stacks] [--teardown] [--before-trace KIND]
                          [--devices N --oom-device K] [--no-times]
    make_user_variants.py SOURCE DIR --all   (DIR/torch.pickle, none.pickle, one per NAME below,
                                              context_alloc.pickle, teardown.pickle, no_stacks.pickle)

--marks torch  keeps what torch writes by itself (Optimizer.step#…, Optimizer.zero_grad#…);
--marks none   removes every mark (older torch, or a run recorded outside any profiler hook).
--rename NAME  renames the script's own functions (every frame of the recording script but its
               <module>) to NAME, as a user's training function is called forward_backward_step
               (torchtitan), forward_backward_func (Megatron) or train_forward_backward.
--forward-oom  cuts the run where active memory peaks in the first iteration's forward, before any
               backward, with an OOM entry there and the allocator state of that moment.
--context-alloc  stacks on allocations only, none on frees (`_record_memory_history(context="alloc")`).
--no-stacks      no frames anywhere (`stacks=None`-like: the trace and the blocks carry none).
--teardown       the script frees every block still live at the end (del model, optimizer) before it
                 dumps: one free_requested + free_completed per block from a `teardown` function of
                 the script, the blocks left inactive.
--before-trace KIND  (repeatable) a block the framework made before recording began, in a segment of its own that
                 the trace never touches, with the framework's frames: kv_cache (vLLM's
                 CacheEngine._allocate_kv_cache), megatron_optimizer (the distributed optimizer's
                 Adam state, init_state_fn), megatron_main_params (its fp32 main params) or fsdp_shard
                 (FSDP2's _init_sharded_param). Its size is 25 % of the source's peak (a multiple of 2 MiB).
--devices N --oom-device K  the run on N devices, as data-parallel ranks in one process record it:
                 device 0's trace and segments copied to each, the OOM entries kept on device K
                 only (the process stopped there; the others were cut short at the same moment).
--no-times       no time_us on any entry or mark (a public NPU snapshot's form).
Prints {"steps": S, "forward_oom": bool}: the training steps the source holds (0 when cut); with
--all, {"files": [...]} as well; with --before-trace, {"before_trace_bytes": {KIND: B}}.
"""
import argparse
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from make_layer_marks import cut_at_first_peak, spans  # noqa: E402
from snapshot_facts import open_any  # noqa: E402

OUR_MARKS = ('forward', 'backward', 'optimizer')
SCRIPT = 'scenarios.py'
USERS_NAMES = ('forward_backward_step', 'forward_backward_func', 'train_forward_backward')


def renamed(frames, name, cache):
    """The same frame list with the script's functions renamed, shared where the source shared it."""
    key = id(frames)
    if key not in cache:
        cache[key] = [dict(f, name=name) if f['filename'].endswith(SCRIPT) and f['name'] != '<module>' else f
                      for f in frames]
    return cache[key]


def variant(data, marks, rename=None, forward_oom=False):
    """`data` changed in place as the options say; the steps it still holds."""
    annotations = data.get('external_annotations', [])
    steps = len(spans(annotations, 'optimizer'))
    if forward_oom:
        cut = cut_at_first_peak(data, [m for m in annotations if m['device'] == 0], through='forward')
        annotations = [m for m in annotations if m['time_us'] < cut]
        steps = 0
    data['external_annotations'] = [m for m in annotations if m['name'] not in OUR_MARKS] if marks == 'torch' else []
    if rename:
        cache = {}
        for trace in data['device_traces']:
            for e in trace:
                if e.get('frames'):
                    e['frames'] = renamed(e['frames'], rename, cache)
        for seg in data['segments']:
            for b in seg.get('blocks', []):
                if b.get('frames'):
                    b['frames'] = renamed(b['frames'], rename, cache)
    return steps


def strip_frames(data, which):
    """Frames removed from the trace entries whose action `which` accepts (and, when it accepts
    allocations, from the segments and their blocks)."""
    for trace in data['device_traces']:
        for e in trace:
            if which(e['action']) and 'frames' in e:
                e['frames'] = []
    if which('alloc'):
        for seg in data['segments']:
            seg['frames'] = []
            for b in seg.get('blocks', []):
                b['frames'] = []


def teardown(data):
    """The script frees what is still live before it dumps, as `del model, optimizer` does."""
    frames = [{'filename': '/srv/jobs/llm/experiments/' + SCRIPT, 'name': 'teardown', 'line': 90},
              {'filename': '/srv/jobs/llm/experiments/' + SCRIPT, 'name': '<module>', 'line': 120}]
    for device, trace in enumerate(data['device_traces']):
        t = max([e.get('time_us', 0) for e in trace] + [m['time_us'] for m in data.get('external_annotations', [])], default=0)
        for seg in data['segments']:
            if seg['device'] != device:
                continue
            for b in seg.get('blocks', []):
                if b['state'] != 'active_allocated':
                    continue
                t += 1
                for action in ('free_requested', 'free_completed'):
                    trace.append({'action': action, 'addr': b['address'], 'size': b['requested_size'], 'stream': seg['stream'],
                                  'time_us': t, 'compile_context': '', 'user_metadata': '', 'frames': frames})
                b['state'] = 'inactive'
            seg['allocated_size'] = seg['active_size'] = seg['requested_size'] = sum(
                b['size'] for b in seg.get('blocks', []) if b['state'] != 'inactive')


BEFORE_TRACE = {
    'kv_cache': [('vllm/worker/cache_engine.py', '_allocate_kv_cache', 89), ('vllm/worker/cache_engine.py', '__init__', 68),
                 ('vllm/worker/worker.py', '_init_cache_engine', 301), ('vllm/worker/worker.py', 'initialize_cache', 284)],
    'megatron_optimizer': [('megatron/core/optimizer/__init__.py', 'init_state_fn', 402),
                           ('megatron/core/optimizer/distrib_optimizer.py', '_init_optimizer_states_with_dummy_values', 2035),
                           ('megatron/training/training.py', 'setup_model_and_optimizer', 1180)],
    'megatron_main_params': [('megatron/core/optimizer/distrib_optimizer.py', '_build_model_and_main_param_groups', 391),
                             ('megatron/core/optimizer/distrib_optimizer.py', '__init__', 560),
                             ('megatron/training/training.py', 'setup_model_and_optimizer', 1180)],
    'fsdp_shard': [('torch/distributed/fsdp/_fully_shard/_fsdp_param.py', '_init_sharded_param', 358),
                   ('torch/distributed/fsdp/_fully_shard/_fsdp_param.py', '__init__', 240),
                   ('torch/distributed/fsdp/_fully_shard/_fully_shard.py', 'fully_shard', 210)],
}


def before_trace(data, kind):
    """A block made before the trace by the framework `kind` names; returns its size."""
    trace = data['device_traces'][0]
    live, peak = 0, 0
    for e in trace:
        if e['action'] == 'alloc':
            live += e['size']
        elif e['action'] == 'free_completed':
            live -= e['size']
        peak = max(peak, live)
    size = max(2 << 20, (peak // 4) >> 21 << 21)
    top = max(s['address'] + s['total_size'] for s in data['segments'])
    addr = (top + (1 << 30)) >> 21 << 21
    site = '/usr/local/lib/python3.12/site-packages/'
    frames = [{'filename': site + f, 'name': n, 'line': line} for f, n, line in BEFORE_TRACE[kind]]
    frames.append({'filename': '/srv/jobs/llm/experiments/' + SCRIPT, 'name': '<module>', 'line': 12})
    data['segments'].append({'device': 0, 'address': addr, 'total_size': size, 'allocated_size': size, 'active_size': size,
                             'requested_size': size, 'stream': 0, 'segment_type': 'large', 'segment_pool_id': (0, 0),
                             'is_expandable': False, 'frames': frames,
                             'blocks': [{'address': addr, 'size': size, 'requested_size': size, 'state': 'active_allocated',
                                         'frames': frames}]})
    return size


def on_devices(data, count, oom_device):
    """Device 0's run on `count` devices, its OOM entries on `oom_device` alone."""
    trace = data['device_traces'][0]
    data['device_traces'] = [[e for e in trace if e['action'] != 'oom' or d == oom_device] for d in range(count)]
    segments = [s for s in data['segments'] if s['device'] == 0]
    data['segments'] = [dict(s, device=d) for d in range(count) for s in segments]
    for m in list(data.get('external_annotations', [])):
        if m['device'] == 0:
            data['external_annotations'] += [dict(m, device=d) for d in range(1, count)]


def write(data, out):
    with open(out + '.tmp', 'wb') as f:
        pickle.dump(data, f, protocol=4)
    os.replace(out + '.tmp', out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--marks', choices=['torch', 'none'])
    ap.add_argument('--rename')
    ap.add_argument('--forward-oom', action='store_true')
    ap.add_argument('--context-alloc', action='store_true')
    ap.add_argument('--no-stacks', action='store_true')
    ap.add_argument('--teardown', action='store_true')
    ap.add_argument('--before-trace', choices=sorted(BEFORE_TRACE), action='append', default=[])
    ap.add_argument('--devices', type=int, default=1)
    ap.add_argument('--oom-device', type=int, default=0)
    ap.add_argument('--no-times', action='store_true')
    ap.add_argument('--all', action='store_true')
    args = ap.parse_args()
    data = open_any(args.source)
    if not args.all:
        steps = variant(data, args.marks or 'none', args.rename, args.forward_oom)
        out = {'steps': steps, 'forward_oom': args.forward_oom}
        if args.context_alloc:
            strip_frames(data, lambda action: action != 'alloc')
        if args.teardown:
            teardown(data)
        if args.before_trace:
            out['before_trace_bytes'] = {kind: before_trace(data, kind) for kind in args.before_trace}
        if args.no_stacks:
            strip_frames(data, lambda action: True)
        if args.devices > 1:
            on_devices(data, args.devices, args.oom_device)
        if args.no_times:
            for e in [e for trace in data['device_traces'] for e in trace] + data.get('external_annotations', []):
                e.pop('time_us', None)
        write(data, args.out)
        print(json.dumps(out))
        return
    os.makedirs(args.out, exist_ok=True)
    source = pickle.dumps(data, protocol=4)
    files = []
    changes = {'context_alloc': lambda d: strip_frames(d, lambda action: action != 'alloc'), 'teardown': teardown,
               'no_stacks': lambda d: strip_frames(d, lambda action: True)}
    for name, marks, rename in ([('torch', 'torch', None), ('none', 'none', None)] + [(n, 'none', n) for n in USERS_NAMES] +
                                [(n, 'torch', None) for n in changes]):
        copy = pickle.loads(source)
        steps = variant(copy, marks, rename)
        if name in changes:
            changes[name](copy)
        files.append(os.path.join(args.out, name + '.pickle'))
        write(copy, files[-1])
    print(json.dumps({'steps': steps, 'forward_oom': False, 'files': files}))


if __name__ == '__main__':
    main()
