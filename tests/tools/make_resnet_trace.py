#!/usr/bin/env python3
"""Writes a torch.profiler Chrome trace of torchvision's ResNet-50 training in bf16 (weights cast
with .to(torch.bfloat16), SGD with momentum, 224 px images) as profile_memory=True without
with_stack records it: cpu_op ranges (aten::conv2d … aten::cudnn_convolution, the autograd
nodes of backward on their own thread), ProfilerStep#N and Optimizer.* annotations, and
[memory] events with Addr, Bytes and the allocator's totals. Profiling starts after warm-up,
so the weights, momentum buffers and the last step's gradients predate the trace, as they do
in users' traces. The layer shapes are torchvision's Bottleneck (v1.5: stride on the 3x3 conv).

--amp trains fp32 weights under autocast(bf16) instead: fp32 images, gradients and momentum,
and each convolution's and the fc's weights cast to bf16 inside the operator that uses them
(aten::to → aten::_to_copy), kept for backward. --record-shapes writes each operator's
"Input type" as record_shapes=True does: under autocast a product is recorded as called, on
float inputs, and again inside, after the casts, on c10::BFloat16 ones.

Prints the trace's own facts, computed here: the peak of Total Allocated, which share of the
bytes live there forward created for backward, the parameter count, the bytes per weight and
the bytes of autocast's cast copies.

make_resnet_trace.py OUT.json [BATCH] [STEPS] [--amp] [--record-shapes]"""
import json
import sys

MIB = 1 << 20


def layers():
    """(name, out channels, in channels, kernel, spatial) of each conv, with its BN, in forward
    order; 'add' marks a residual add over (channels, spatial)."""
    out = [('conv1', 64, 3, 7, 112), ('maxpool', 64, 0, 0, 56)]
    inplanes = 64
    for stage, (width, blocks, side) in enumerate([(64, 3, 56), (128, 4, 28), (256, 6, 14), (512, 3, 7)]):
        for b in range(blocks):
            first_side = side * 2 if (b == 0 and stage > 0) else side
            out.append(('l%d.%d.conv1' % (stage + 1, b), width, inplanes, 1, first_side))
            out.append(('l%d.%d.conv2' % (stage + 1, b), width, width, 3, side))
            out.append(('l%d.%d.conv3' % (stage + 1, b), width * 4, width, 1, side))
            if b == 0:
                out.append(('l%d.%d.down' % (stage + 1, b), width * 4, inplanes, 1, side))
            out.append(('add', width * 4, 0, 0, side))
            inplanes = width * 4
    out.append(('fc', 1000, 2048, 0, 1))
    return out


class Allocator:
    """Addresses and the allocator's running totals: blocks rounded to 512 bytes, reserved in
    20 MiB segments that are kept (the caching allocator's steady state)."""

    def __init__(self, allocated_before, reserved_before):
        self.allocated = allocated_before
        self.reserved = reserved_before
        self.free_by_size = {}
        self.next_addr = 0x7F0000000000 + reserved_before
        self.size_of = {}

    def alloc(self, size):
        rounded = (size + 511) // 512 * 512
        pool = self.free_by_size.get(rounded)
        if pool:
            addr = pool.pop()
        else:
            addr = self.next_addr
            self.next_addr += rounded
        self.size_of[addr] = rounded
        self.allocated += rounded
        while self.allocated > self.reserved:
            self.reserved += 20 * MIB
        return addr, rounded

    def free(self, addr, rounded):
        self.allocated -= rounded
        self.size_of.pop(addr, None)
        self.free_by_size.setdefault(rounded, []).append(addr)


def main(out_path, batch=64, steps=3, amp=False, shapes=False):
    bf16 = 2
    wbytes = 4 if amp else 2  # bytes per weight, gradient and momentum value
    called = 'float' if amp else 'c10::BFloat16'  # what a product is called on
    params = []  # (element count) per parameter tensor
    for name, c_out, c_in, k, _ in layers():
        if name.startswith(('conv', 'l')) and k:
            params += [c_out * c_in * k * k, c_out, c_out]  # conv weight, BN weight and bias
        elif name == 'fc':
            params += [c_out * c_in, c_out]
    param_bytes = sum((p * wbytes + 511) // 512 * 512 for p in params)
    # Before the trace: weights, momentum buffers and the previous step's gradients.
    before = 3 * param_bytes
    base = 0x7E0000000000
    old_grads = []
    addr = base
    for p in params:
        rounded = (p * wbytes + 511) // 512 * 512
        old_grads.append((addr, rounded))
        addr += rounded
    a = Allocator(before, (before // (20 * MIB) + 1) * 20 * MIB)
    events = []
    ts = 1_000_000.0
    fwd_tid, bwd_tid, pid = 100, 101, 1

    def op(name, tid, dur=5.0, cat='cpu_op', types=None):
        nonlocal ts
        args = {'Input Dims': [[] for _ in types], 'Input type': types} if shapes and types else {}
        events.append({'ph': 'X', 'cat': cat, 'name': name, 'pid': pid, 'tid': tid, 'ts': ts, 'dur': dur, 'args': args})
        start = ts
        ts += 0.5
        return start

    def begin(name, types):
        """An operator that encloses what follows until end()."""
        op(name, fwd_tid, 0.0, types=types)
        return len(events) - 1

    def end(index):
        nonlocal ts
        events[index]['dur'] = ts - events[index]['ts']
        ts += 0.5

    casts = []  # autocast's bf16 copies, kept for backward

    def cast(elements):
        outer = begin('aten::to', ['float', '', '', '', '', ''])
        inner = begin('aten::_to_copy', ['float', '', '', '', '', ''])
        casts.append(alloc(fwd_tid, elements * bf16))
        end(inner)
        end(outer)

    def product(called_name, run_names, weight_elements, bias_elements, output_bytes, first=0):
        """A convolution or the fc as record_shapes sees it: under autocast the call on float
        inputs, its weights (and the images, `first`) cast inside, then the same call on bf16."""
        frames = [begin(called_name, [called] * 3 + ['ScalarList'])]
        if amp:
            for elements in (first, weight_elements, bias_elements):
                if elements:
                    cast(elements)
            frames.append(begin(called_name, ['c10::BFloat16'] * 3 + ['ScalarList']))
        for n in run_names:
            frames.append(begin(n, ['c10::BFloat16'] * 3 + ['ScalarList']))
        out = alloc(fwd_tid, output_bytes)
        for index in reversed(frames):
            end(index)
        return out

    def mem(tid, address, nbytes):
        nonlocal ts
        events.append({'ph': 'i', 'cat': 'cpu_instant_event', 's': 't', 'name': '[memory]', 'pid': pid, 'tid': tid, 'ts': ts,
                       'args': {'Total Reserved': a.reserved, 'Total Allocated': a.allocated, 'Bytes': nbytes, 'Device Id': 0,
                                'Device Type': 1, 'Addr': address}})
        ts += 0.5

    def alloc(tid, size):
        address, rounded = a.alloc(size)
        mem(tid, address, rounded)
        return address, rounded

    def free(tid, block):
        a.free(*block)
        mem(tid, block[0], -block[1])

    peak = (0, 0)
    for step in range(steps):
        step_start = ts
        # zero_grad(set_to_none=True): the previous step's gradients go.
        z = op('Optimizer.zero_grad#SGD.zero_grad', fwd_tid, 40.0, 'user_annotation')
        for g in old_grads:
            free(fwd_tid, g)
        ts = max(ts, z + 41)
        op('aten::to', fwd_tid)
        images = alloc(fwd_tid, batch * 3 * 224 * 224 * (4 if amp else bf16))
        labels = alloc(fwd_tid, batch * 8)
        saved = []  # forward's tensors kept for backward, in order
        for name, c_out, c_in, k, side in layers():
            if name == 'maxpool':
                op('aten::max_pool2d', fwd_tid)
                op('aten::max_pool2d_with_indices', fwd_tid)
                saved.append(alloc(fwd_tid, batch * c_out * side * side * bf16))
                saved.append(alloc(fwd_tid, batch * c_out * side * side * 8))  # indices
            elif name == 'add':
                op('aten::add', fwd_tid)
                saved.append(alloc(fwd_tid, batch * c_out * side * side * bf16))
                op('aten::relu_', fwd_tid)
            elif name == 'fc':
                op('aten::adaptive_avg_pool2d', fwd_tid)
                saved.append(alloc(fwd_tid, batch * 2048 * bf16))
                saved.append(product('aten::linear', ['aten::addmm'], c_out * c_in, c_out, batch * 1000 * bf16))
            else:
                first = batch * 3 * 224 * 224 if name == 'conv1' else 0
                saved.append(product('aten::conv2d', ['aten::convolution', 'aten::_convolution', 'aten::cudnn_convolution'],
                                     c_out * c_in * k * k, 0, batch * c_out * side * side * bf16, first))
                op('aten::batch_norm', fwd_tid)
                op('aten::cudnn_batch_norm', fwd_tid)
                saved.append(alloc(fwd_tid, batch * c_out * side * side * bf16))
                saved.append(alloc(fwd_tid, c_out * 4))  # save_mean
                saved.append(alloc(fwd_tid, c_out * 4))  # save_invstd
                if not name.endswith(('conv3', 'down')):
                    op('aten::relu_', fwd_tid)
        op('aten::cross_entropy_loss', fwd_tid)
        op('aten::log_softmax', fwd_tid)
        saved.append(alloc(fwd_tid, batch * 1000 * bf16))
        op('aten::nll_loss_forward', fwd_tid)
        loss = alloc(fwd_tid, 512)
        if a.allocated > peak[0]:
            peak = (a.allocated, sum(b[1] for b in saved) + sum(b[1] for b in casts))
        # Backward on the autograd thread: each node makes its input's gradient (and its
        # weights'), then frees what forward kept for it and the gradient it consumed.
        grads = []
        grad_out = alloc(bwd_tid, batch * 1000 * bf16)
        nodes = ['NllLossBackward0', 'LogSoftmaxBackward0', 'AddmmBackward0', 'MeanBackward1']
        for name, c_out, c_in, k, side in reversed(layers()):
            if k:
                nodes += ['CudnnBatchNormBackward0', 'ConvolutionBackward0']
        while saved:
            node = nodes.pop(0) if nodes else 'ReluBackward0'
            op('autograd::engine::evaluate_function: ' + node, bwd_tid, 20.0)
            block = saved.pop()
            grad_in = alloc(bwd_tid, block[1])
            if node == 'ConvolutionBackward0' and len(grads) < len(params):
                grads.append(alloc(bwd_tid, params[len(grads)] * wbytes))
            free(bwd_tid, block)
            free(bwd_tid, grad_out)
            grad_out = grad_in
        free(bwd_tid, grad_out)
        while len(grads) < len(params):  # BN and fc gradients, small, each made by its node as torch does
            op('autograd::engine::evaluate_function: CudnnBatchNormBackward0', bwd_tid, 1.0)
            grads.append(alloc(bwd_tid, params[len(grads)] * wbytes))
        cast_bytes = sum(b[1] for b in casts)
        while casts:
            free(bwd_tid, casts.pop())
        free(fwd_tid, images)
        free(fwd_tid, labels)
        free(fwd_tid, loss)
        s = op('Optimizer.step#SGD.step', fwd_tid, 60.0, 'user_annotation')
        op('aten::_foreach_add_', fwd_tid)
        ts = max(ts, s + 61)
        old_grads = grads
        events.append({'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#%d' % (step + 2), 'pid': pid, 'tid': fwd_tid,
                       'ts': step_start - 0.25, 'dur': ts - step_start + 0.5, 'args': {}})
        ts += 10
    trace = {'schemaVersion': 1, 'profile_memory': 1, 'with_stack': 0, 'record_shapes': int(shapes), 'displayTimeUnit': 'ms',
             'traceEvents': events}
    json.dump(trace, open(out_path, 'w'))
    print(json.dumps({'peak_total_allocated': max(e['args']['Total Allocated'] for e in events if e['name'] == '[memory]'),
                      'forward_saved_at_peak': peak[1], 'parameters': sum(params), 'weight_bytes': wbytes,
                      'parameter_bytes': param_bytes, 'cast_bytes': cast_bytes}))


if __name__ == '__main__':
    flags = [a for a in sys.argv[1:] if a.startswith('--')]
    numbers = [int(a) for a in sys.argv[2:] if not a.startswith('--')]
    main(sys.argv[1], *numbers, amp='--amp' in flags, shapes='--record-shapes' in flags)
