#!/usr/bin/env python3
"""Gives a corpus run the per-layer record_function marks that distributed training frameworks
write, as users' files have them, and prints what a correct reader must find (JSON).

    make_layer_marks.py SOURCE OUT --framework fsdp2|megatron|deepspeed [--layers N]
                        [--drop-user-marks] [--oom-in-first-step]

Inside each `forward` and `backward` of the run, N layers' marks evenly spaced in time:
  fsdp2     torch's FSDP2 (torch/distributed/fsdp/_fully_shard): FSDP::root_pre_forward once per
            forward; per layer FSDP::cast_forward_inputs (no module name), FSDP::pre_forward
            (model.layers.i) holding FSDP::all_gather (model.layers.i) and nccl:all_gather,
            FSDP::post_forward (model.layers.i); in backward FSDP::pre_backward and
            FSDP::post_backward_reduce (model.layers.i);
  megatron  per layer decoder.layers.i.self_attention and decoder.layers.i.mlp, and one
            forward-backward around the pass;
  deepspeed per layer fetch_sub_module (the same name every layer) and
            DeepSpeedZeRoOffload.pre_sub_module_forward_function.
torch.optim's own Optimizer.step#… marks stay. --drop-user-marks removes the script's own
forward / backward / optimizer marks (many FSDP jobs have none). --oom-in-first-step cuts the run
where active memory peaks in the first step's forward and backward, adds the OOM entry there and gives the segments the
allocator state at that moment (MemoryViz's rule, memoryviz_state): the first-iteration OOM of a
large job. Prints {"steps": S, "layers": N}: S, the training steps the file holds (the marks of
truth.json, or 0 for a first-step OOM).
"""
import argparse
import json
import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(__file__))
from cut_dumps import segment_of  # noqa: E402
from memoryviz_state import simulate_many  # noqa: E402
from snapshot_facts import open_any  # noqa: E402


def spans(marks, name):
    """(start, end) of each closed phase called `name`, in time order."""
    out, open_at = [], []
    for m in sorted(marks, key=lambda m: m['time_us']):
        if m['name'] != name:
            continue
        if m['stage'] == 'START':
            open_at.append(m['time_us'])
        elif open_at:
            out.append((open_at.pop(), m['time_us']))
    return out


def mark(name, stage, t):
    return {'name': name, 'stage': stage, 'device': 0, 'time_us': t}


def ranges_in(start, end, layers, backward):
    """`layers` equal slices of [start, end), last layer first in backward."""
    width = max(1, (end - start) // max(1, layers))
    order = range(layers - 1, -1, -1) if backward else range(layers)
    return [(i, start + k * width, start + (k + 1) * width - 1) for k, i in enumerate(order)]


def layer_marks(framework, forward, backward, layers):
    out = []
    for start, end in forward:
        if framework == 'fsdp2':
            out += [mark('FSDP::root_pre_forward', 'START', start), mark('FSDP::root_pre_forward', 'END', start)]
        if framework == 'megatron':
            out += [mark('forward-backward', 'START', start)]
        for i, a, b in ranges_in(start + 1, end, layers, False):
            fqn = f'model.layers.{i}'
            third = max(1, (b - a) // 3)
            if framework == 'fsdp2':
                out += [mark('FSDP::cast_forward_inputs', 'START', a), mark('FSDP::cast_forward_inputs', 'END', a),
                        mark(f'FSDP::pre_forward ({fqn})', 'START', a), mark(f'FSDP::all_gather ({fqn})', 'START', a),
                        mark('nccl:all_gather', 'START', a), mark('nccl:all_gather', 'END', a + 1),
                        mark(f'FSDP::all_gather ({fqn})', 'END', a + 1), mark(f'FSDP::pre_forward ({fqn})', 'END', a + 2),
                        mark(f'FSDP::post_forward ({fqn})', 'START', b - 1), mark(f'FSDP::post_forward ({fqn})', 'END', b)]
            elif framework == 'megatron':
                out += [mark(f'decoder.layers.{i}.self_attention', 'START', a), mark(f'decoder.layers.{i}.self_attention', 'END', a + third),
                        mark(f'decoder.layers.{i}.mlp', 'START', a + third + 1), mark(f'decoder.layers.{i}.mlp', 'END', b)]
            else:
                out += [mark('fetch_sub_module', 'START', a), mark('fetch_sub_module', 'END', a + 1),
                        mark('DeepSpeedZeRoOffload.pre_sub_module_forward_function', 'START', a + 2),
                        mark('DeepSpeedZeRoOffload.pre_sub_module_forward_function', 'END', a + 3)]
    for start, end in backward:
        for i, a, b in ranges_in(start + 1, end, layers, True):
            fqn = f'model.layers.{i}'
            if framework == 'fsdp2':
                out += [mark(f'FSDP::pre_backward ({fqn})', 'START', a), mark(f'FSDP::pre_backward ({fqn})', 'END', a + 1),
                        mark(f'FSDP::post_backward_reduce ({fqn})', 'START', b - 1), mark(f'FSDP::post_backward_reduce ({fqn})', 'END', b)]
            elif framework == 'megatron':
                out += [mark(f'decoder.layers.{i}.mlp', 'START', a), mark(f'decoder.layers.{i}.mlp', 'END', b)]
            else:
                out += [mark('fetch_sub_module', 'START', a), mark('fetch_sub_module', 'END', a + 1)]
        if framework == 'megatron':
            out += [mark('forward-backward', 'END', end)]
    return out


def cut_at_first_peak(data, marks, through='backward'):
    """The trace up to where active memory peaks in the first step from its forward through
    `through` (its backward, or the forward alone), an OOM entry there, and the allocator state
    at that moment as segments."""
    trace = data['device_traces'][0]
    start, end = spans(marks, 'forward')[0][0], spans(marks, through)[0][1]
    active, best, at = 0, -1, 0
    sizes = {}
    for i, e in enumerate(trace):
        if e['time_us'] >= end:
            break
        if e['action'] == 'alloc':
            active += e['size']
            sizes[e['addr']] = e['size']
        elif e['action'] == 'free_completed':
            active -= sizes.pop(e['addr'], 0)
        if e['time_us'] >= start and active > best:
            best, at = active, i
    segments, blocks = simulate_many(data, 0, [at])[at]
    final_blocks = {b['address']: b for s in data['segments'] for b in s['blocks'] if 'address' in b}
    blocks = sorted(blocks, key=lambda b: b['addr'])
    data['segments'] = [segment_of(s, [b for b in blocks if s['addr'] <= b['addr'] < s['addr'] + s['size']], final_blocks, {}, 0)
                        for s in sorted(segments, key=lambda s: s['addr'])]
    last = trace[at]
    oom = {'action': 'oom', 'device_free': 1 << 20, 'size': 1 << 30, 'stream': 0, 'time_us': last['time_us'] + 1,
           'compile_context': 'N/A', 'user_metadata': '', 'frames': last.get('frames', [])}
    data['device_traces'][0] = trace[:at + 1] + [oom]
    return last['time_us'] + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('source')
    ap.add_argument('out')
    ap.add_argument('--framework', choices=['fsdp2', 'megatron', 'deepspeed'], required=True)
    ap.add_argument('--layers', type=int, default=22)
    ap.add_argument('--drop-user-marks', action='store_true')
    ap.add_argument('--oom-in-first-step', action='store_true')
    args = ap.parse_args()
    data = open_any(args.source)
    marks = [m for m in data['external_annotations'] if m['device'] == 0]
    steps = len(spans(marks, 'Optimizer.step#AdamW.step') or spans(marks, 'Optimizer.step#SGD.step'))
    cut = None
    if args.oom_in_first_step:
        cut = cut_at_first_peak(data, marks)
        steps = 0
    added = layer_marks(args.framework, spans(marks, 'forward'), spans(marks, 'backward'), args.layers)
    if args.drop_user_marks:
        marks = [m for m in marks if m['name'] not in ('forward', 'backward', 'optimizer')]
    marks = sorted(marks + added, key=lambda m: m['time_us'])
    if cut is not None:  # what was recorded before the OOM; phases open at it stay open
        marks = [m for m in marks if m['time_us'] < cut]
    data['external_annotations'] = marks
    with open(args.out + '.tmp', 'wb') as f:
        pickle.dump(data, f, protocol=4)
    os.replace(args.out + '.tmp', args.out)
    print(json.dumps({'steps': steps, 'layers': args.layers}))


if __name__ == '__main__':
    main()
