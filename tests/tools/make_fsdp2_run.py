#!/usr/bin/env python3
"""Writes the memory snapshot one rank of a torchtitan FSDP2 job leaves when it runs out of memory
in its first iteration's loss, as users' files have it, and prints what a correct reader must find
(JSON on stdout).

    make_fsdp2_run.py OUT [--world 4] [--layers 32] [--hidden 4096] [--kv 1024]
                      [--intermediate 14336] [--vocab 128256] [--tokens 8192]
                      [--checkpoint-every 2] [--ranks DIR] [--no-oom]

The model is Llama-3.1-8B's shape by default (untied embeddings; 8,030,261,248 parameters), sharded
by FSDP2 as torchtitan does it: `tok_embeddings`, each `layers.i`, and `norm, output` are units, the
root holds nothing of its own; parameters are fp32 shards (dim 0 split over the world, padded),
gathered in bf16 (MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)). Every unit's forward
runs inside FSDP2's own record_function marks:

  FSDP::pre_forward (u) { FSDP::all_gather (u): one all_gather_output buffer of world x the unit's
  shards; FSDP::all_gather_copy_out (u): each parameter's unsharded bf16 storage, the buffer freed }
  … the unit's forward …
  FSDP::post_forward (u) { the unsharded storages freed, except `norm, output`
  (reshard_after_forward=False) }

Every `--checkpoint-every`-th layer (layers 0, 2, 4, … by default) runs under torch.utils.checkpoint:
its intermediates are freed inside it and only its output stays; the others keep what autograd
saves for backward (RMSNorm inputs and scales, q/k/v before and after RoPE, the attention output
and its log-sum-exp, the SwiGLU's three products). After the model, the loss
(torchtitan/components/loss.py: cross_entropy_loss) asks for the logits' fp32 copy
(tokens x vocabulary x 4 B) and the device has no room: the trace ends with that OOM. Stacks are
C++ and Python interleaved, as torch records them by default; no mark of a script's own.

The allocator: each request rounded to 512 B; a freed block is cached and reused by a request of
the same rounded size (FSDP2's gathers and the layers' activations repeat their sizes), otherwise a
new segment of the request rounded up to 2 MiB. The final segments are that cache at the end.

--ranks DIR writes the same file for every rank as DIR/iteration_1/rank{R}_memory_snapshot.pickle
(torchtitan's layout), OUT being rank 0's.

Printed: {"params", "hidden", "kv", "intermediate", "vocab", "layers", "tokens", "world",
"units": [names in forward order], "checkpointed": [names], "oom_request", "shard_bytes",
"gathered_param_dtype": "bf16", "shard_param_dtype": "fp32"}.
"""
import argparse
import json
import os
import pickle

TORCH = '/opt/venv/lib/python3.12/site-packages/torch/'
TITAN = '/opt/torchtitan/torchtitan/'
MiB = 1 << 20


def cpp(*names):
    return [{'name': n, 'filename': '??', 'line': 0} for n in names]


ALLOCATOR = cpp('torch::unwind::unwind()', 'torch::CapturedTraceback::gather(bool, bool, bool)') + [
    {'name': 'torch::cuda::(anonymous namespace)::gather_with_cpp()', 'filename': 'memory_snapshot.cpp', 'line': 0},
    {'name': 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned long, CUstream_st*)',
     'filename': 'CUDACachingAllocator.cpp', 'line': 0}] + cpp(
    'c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::allocate(unsigned long)',
    'at::detail::empty_generic(c10::ArrayRef<long>, c10::Allocator*, c10::DispatchKeySet, c10::ScalarType, std::optional<c10::MemoryFormat>)',
    'at::detail::empty_cuda(c10::ArrayRef<long>, c10::TensorOptions const&)')
INTERPRETER = cpp('_PyEval_EvalFrameDefault', 'PyObject_Call')


def py(path, line, name):
    return [{'name': name, 'filename': path, 'line': line}] + INTERPRETER


def stack(op, *python):
    """C++ frames of the allocator and the operator, then the Python frames, innermost first."""
    frames = list(ALLOCATOR) + cpp(f'at::_ops::{op}::call(at::Tensor const&)', f'torch::autograd::THPVariable_{op}(_object*, _object*, _object*)')
    for p in python:
        frames += py(*p)
    return frames


TRAIN = (TITAN + 'train.py', 512, 'forward_backward_step')
MAIN = (TITAN + 'train.py', 640, 'train')
CALL = (TORCH + 'nn/modules/module.py', 1790, '_call_impl')


MODEL = TITAN + 'models/llama3/model/model.py'
UNIT_CALLERS = {'tok_embeddings': 455, 'norm, output': 480}  # Transformer.forward's lines; each layer is called from 470


def model_frames(line, name='forward'):
    """A layer's line, inside the layer module Transformer.forward's loop (line 470) calls."""
    return [(MODEL, line, name), CALL, (MODEL, 470, 'forward'), CALL, TRAIN, MAIN]


def top_frames(line):
    """A line of Transformer.forward itself (the embedding, the norm and the output)."""
    return [(MODEL, line, 'forward'), CALL, TRAIN, MAIN]


def unit_caller(unit):
    """Transformer.forward's line whose module call runs the unit's FSDP pre-forward hook."""
    return [(MODEL, UNIT_CALLERS.get(unit, 470), 'forward'), CALL, TRAIN, MAIN]


class Run:
    def __init__(self):
        self.trace, self.marks, self.t = [], [], 1_000_000
        self.cache = {}      # rounded size -> [segment addresses with a free block]
        self.segments = {}   # address -> {'size', 'block', 'requested', 'frames', 'live'}
        self.next_addr = 0x7f0000000000
        self.live = {}       # handle -> (addr, size, frames)
        self.handles = 0

    def tick(self):
        self.t += 3
        return self.t

    def mark(self, name, stage):
        self.marks.append({'name': name, 'stage': stage, 'device': 0, 'time_us': self.tick()})

    def entry(self, action, addr, size, frames):
        self.trace.append({'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': self.tick(),
                           'compile_context': 'N/A', 'user_metadata': '', 'frames': frames})

    def alloc(self, size, frames):
        rounded = max(512, (size + 511) // 512 * 512)
        free = self.cache.get(rounded)
        if free:
            addr = free.pop()
        else:
            addr = self.next_addr
            seg_size = (rounded + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)
            self.next_addr += seg_size
            self.segments[addr] = {'size': seg_size, 'block': rounded}
            self.entry('segment_alloc', addr, seg_size, frames)
        self.segments[addr].update(requested=size, frames=frames, live=True)
        self.entry('alloc', addr, rounded, frames)
        self.handles += 1
        self.live[self.handles] = (addr, rounded, frames)
        return self.handles

    def free(self, handle):
        addr, size, frames = self.live.pop(handle)
        self.entry('free_requested', addr, size, frames)
        self.entry('free_completed', addr, size, frames)
        self.segments[addr]['live'] = False
        self.cache.setdefault(size, []).append(addr)

    def final_segments(self):
        out = []
        for addr, s in sorted(self.segments.items()):
            blocks = [{'address': addr, 'size': s['block'], 'requested_size': s['requested'] if s['live'] else 0,
                       'state': 'active_allocated' if s['live'] else 'inactive', 'frames': s['frames'] if s['live'] else []}]
            if s['size'] > s['block']:
                blocks.append({'address': addr + s['block'], 'size': s['size'] - s['block'], 'requested_size': 0,
                               'state': 'inactive', 'frames': []})
            active = s['block'] if s['live'] else 0
            out.append({'device': 0, 'address': addr, 'total_size': s['size'], 'allocated_size': active, 'active_size': active,
                        'requested_size': s['requested'] if s['live'] else 0, 'stream': 0, 'segment_type': 'large',
                        'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': [], 'blocks': blocks})
        return out


def unit_params(a):
    """(unit, [(dim0, rest)]) in forward order; a parameter of dim0 x rest values."""
    h, kv, inter, v = a.hidden, a.kv, a.intermediate, a.vocab
    layer = [(h, h), (kv, h), (kv, h), (h, h), (inter, h), (h, inter), (inter, h), (h, 1), (h, 1)]
    return [('tok_embeddings', [(v, h)])] + [(f'layers.{i}', layer) for i in range(a.layers)] + [('norm, output', [(h, 1), (v, h)])]


def shard_numel(dim0, rest, world):
    return -(-dim0 // world) * rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--world', type=int, default=4)
    ap.add_argument('--layers', type=int, default=32)
    ap.add_argument('--hidden', type=int, default=4096)
    ap.add_argument('--kv', type=int, default=1024)
    ap.add_argument('--intermediate', type=int, default=14336)
    ap.add_argument('--vocab', type=int, default=128256)
    ap.add_argument('--tokens', type=int, default=8192)
    ap.add_argument('--checkpoint-every', type=int, default=2)
    ap.add_argument('--ranks')
    ap.add_argument('--no-oom', action='store_true')
    a = ap.parse_args()
    T, H, KV, I, V, W = a.tokens, a.hidden, a.kv, a.intermediate, a.vocab, a.world
    heads = H // 128
    units = unit_params(a)
    r = Run()

    # Sharding: each parameter's fp32 shard, made by fully_shard, outside every unit.
    shard_frames = stack('empty', (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param.py', 368, '_init_sharded_param'),
                         (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param.py', 245, '__init__'),
                         (TORCH + 'distributed/fsdp/_fully_shard/_fully_shard.py', 256, 'fully_shard'),
                         (TITAN + 'models/llama3/infra/parallelize.py', 301, 'apply_fsdp'), MAIN)
    shard_bytes = 0
    for _, params in units:
        for dim0, rest in params:
            n = shard_numel(dim0, rest, W) * 4
            shard_bytes += n
            r.alloc(n, shard_frames)
    r.alloc(T * (H // heads) * 4, stack('polar', (TITAN + 'models/llama3/model/model.py', 61, 'precompute_freqs_cis'), MAIN))
    r.alloc(T * 8, stack('_to_copy', TRAIN, MAIN))

    # FSDP2's pre-forward hook runs inside the unit's module call: its gathers' stacks go through
    # the line of Transformer.forward that calls the unit.
    def gather_frames(unit):
        return stack('empty', (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_collectives.py', 204, 'foreach_all_gather'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param_group.py', 290, 'unshard'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param_group.py', 335, 'pre_forward'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_state.py', 232, '_pre_forward'), CALL, *unit_caller(unit))

    def copy_out_frames(unit):
        return stack('empty', (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param.py', 470, 'alloc_storage'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param.py', 436, 'init_unsharded_param'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_collectives.py', 330, 'foreach_all_gather_copy_out'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_param_group.py', 320, 'wait_for_unshard'),
                     (TORCH + 'distributed/fsdp/_fully_shard/_fsdp_state.py', 232, '_pre_forward'), CALL, *unit_caller(unit))
    checkpoint = [(TORCH + 'utils/checkpoint.py', 1180, 'forward'), (TORCH + 'utils/checkpoint.py', 496, 'checkpoint')]

    def gather(unit, params):
        r.mark(f'FSDP::pre_forward ({unit})', 'START')
        r.mark(f'FSDP::all_gather ({unit})', 'START')
        buf = r.alloc(W * sum(shard_numel(d, rest, W) for d, rest in params) * 2, gather_frames(unit))
        r.mark(f'FSDP::all_gather ({unit})', 'END')
        r.mark(f'FSDP::all_gather_copy_out ({unit})', 'START')
        storages = [r.alloc(d * rest * 2, copy_out_frames(unit)) for d, rest in params]
        r.free(buf)
        r.mark(f'FSDP::all_gather_copy_out ({unit})', 'END')
        r.mark(f'FSDP::pre_forward ({unit})', 'END')
        return storages

    def reshard(unit, storages, keep):
        r.mark(f'FSDP::post_forward ({unit})', 'START')
        if not keep:
            for s in storages:
                r.free(s)
        r.mark(f'FSDP::post_forward ({unit})', 'END')

    r.mark('FSDP::root_pre_forward', 'START')
    r.mark('FSDP::root_pre_forward', 'END')
    r.mark('FSDP::pre_forward', 'START')
    r.mark('FSDP::pre_forward', 'END')
    checkpointed = []
    for unit, params in units:
        storages = gather(unit, params)
        if unit == 'tok_embeddings':
            h = r.alloc(T * H * 2, stack('embedding', *top_frames(455)))
        elif unit.startswith('layers.'):
            i = int(unit.split('.')[1])
            ckpt = a.checkpoint_every > 0 and i % a.checkpoint_every == 0
            # (bytes, operator, line): what autograd keeps of the layer for its backward.
            saved = [(T * H * 2, 'rms_norm', 302), (T * 4, 'rsqrt', 303), (T * H * 2, 'mm', 180), (T * KV * 2, 'mm', 181),
                     (T * KV * 2, 'mm', 182), (T * H * 2, 'mul', 120), (T * KV * 2, 'mul', 121), (T * H * 2, '_scaled_dot_product_flash_attention', 205),
                     (heads * T * 4, '_scaled_dot_product_flash_attention', 205), (T * H * 2, 'add', 340), (T * H * 2, 'rms_norm', 341),
                     (T * 4, 'rsqrt', 342), (T * I * 2, 'mm', 250), (T * I * 2, 'silu', 250), (T * I * 2, 'mm', 251), (T * I * 2, 'mul', 251)]
            extra = [] if not ckpt else checkpoint
            made = [r.alloc(n, stack(op, *(model_frames(line)[:1] + extra + model_frames(line)[1:]))) for n, op, line in saved]
            upcast = r.alloc(T * H * 4, stack('_to_copy', *model_frames(300, '_norm')))  # RMSNorm's fp32 upcast: a temporary
            r.free(upcast)
            out = r.alloc(T * H * 2, stack('add', *(model_frames(343)[:1] + extra + model_frames(343)[1:])))
            if ckpt:
                checkpointed.append(unit)
                for m in made:
                    r.free(m)
            h = out
        else:
            r.alloc(T * H * 2, stack('rms_norm', *top_frames(480)))
            r.alloc(T * V * 2, stack('mm', *top_frames(481)))  # the logits, bf16
        reshard(unit, storages, keep=unit == 'norm, output')
    r.mark('FSDP::post_forward', 'START')
    r.mark('FSDP::post_forward', 'END')

    request = T * V * 4
    loss_frames = stack('_to_copy', (TITAN + 'components/loss.py', 22, 'cross_entropy_loss'), TRAIN, MAIN)
    if not a.no_oom:
        r.trace.append({'action': 'oom', 'addr': 0, 'size': request, 'device_free': 2 * MiB * 300, 'stream': 0,
                        'time_us': r.tick(), 'compile_context': 'N/A', 'user_metadata': '', 'frames': loss_frames})
    snapshot = {'segments': r.final_segments(), 'device_traces': [r.trace], 'external_annotations': r.marks,
                'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1, 'garbage_collection_threshold': 0.0,
                                       'expandable_segments': False}}
    with open(a.out, 'wb') as f:
        pickle.dump(snapshot, f, protocol=4)
    if a.ranks:
        folder = os.path.join(a.ranks, 'iteration_1')
        os.makedirs(folder, exist_ok=True)
        for rank in range(W):
            with open(os.path.join(folder, f'rank{rank}_memory_snapshot.pickle'), 'wb') as f:
                pickle.dump(snapshot, f, protocol=4)
    params = sum(d * rest for _, ps in units for d, rest in ps)
    print(json.dumps({'params': params, 'hidden': H, 'kv': KV, 'intermediate': I, 'vocab': V, 'layers': a.layers,
                      'tokens': T, 'world': W, 'units': [u for u, _ in units], 'checkpointed': checkpointed,
                      'oom_request': request, 'shard_bytes': shard_bytes, 'gathered_param_dtype': 'bf16',
                      'shard_param_dtype': 'fp32'}))


if __name__ == '__main__':
    main()
