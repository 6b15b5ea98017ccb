#!/usr/bin/env python3
"""Independent oracle for a trace's recorded input types: per thread, the matrix products and
convolutions (cpu_op events, by name) nested by their time ranges; of the outermost ones, how
many took float, c10::BFloat16 and c10::Half as their first typed input, and how many
float ones have a 16-bit one directly inside (autocast's casts). Only the json module.

operator_dtypes.py TRACE[.gz]"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from trace_facts import load_json  # noqa: E402

PRODUCTS = {'aten::linear', 'aten::matmul', 'aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm', 'aten::addbmm', 'aten::mv',
            'aten::addmv', 'aten::conv1d', 'aten::conv2d', 'aten::conv3d', 'aten::conv_transpose1d', 'aten::conv_transpose2d',
            'aten::conv_transpose3d', 'aten::convolution', 'aten::_convolution', 'aten::cudnn_convolution',
            'aten::scaled_dot_product_attention'}
KINDS = {'float': 'fp32', 'c10::BFloat16': 'bf16', 'c10::Half': 'fp16'}


def main(path):
    data = load_json(path)
    threads = {}
    for e in data['traceEvents']:
        if e.get('ph') != 'X' or e.get('cat') != 'cpu_op':
            continue
        name = e.get('name', '')
        if name not in PRODUCTS and not name.startswith('aten::_scaled_dot_product_'):
            continue
        types = (e.get('args') or {}).get('Input type') or []
        first = next((t for t in types if isinstance(t, str) and t), None)
        if first not in KINDS:
            continue
        start = float(e['ts'])
        threads.setdefault(e.get('tid'), []).append((start, start + max(0.0, float(e.get('dur', 0))), KINDS[first]))
    out = {'fp32': 0, 'bf16': 0, 'fp16': 0, 'cast': 0}
    for ops in threads.values():
        ops.sort(key=lambda o: (o[0], -o[1]))
        stack = []  # [end, kind, cast counted]
        for start, end, kind in ops:
            while stack and stack[-1][0] < start:
                stack.pop()
            if not stack:
                out[kind] += 1
            elif stack[-1][1] == 'fp32' and kind != 'fp32' and not stack[-1][2]:
                stack[-1][2] = True
                out['cast'] += 1
            stack.append([end, kind, False])
    print(json.dumps(out))


if __name__ == '__main__':
    main(sys.argv[1])
