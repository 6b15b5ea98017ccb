#!/usr/bin/env python3
"""Independent oracle for a profiler trace's operator structure, with nothing but the json module:
per step annotation (a user_annotation that is not an optimizer call), how many outermost
`nn.Module: …` calls and autograd `evaluate_function` operators ran in it, and when the first
autograd operator started and the last ended (µs, floored as Chrome traces are read)."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from trace_facts import load_json  # noqa: E402


def main(path):
    events = load_json(path)['traceEvents']
    spans = lambda pred: sorted((e['ts'], e['ts'] + e.get('dur', 0)) for e in events if e.get('ph') == 'X' and pred(e))
    steps = spans(lambda e: e.get('cat') == 'user_annotation' and 'ptimizer' not in e['name'])
    modules = spans(lambda e: e.get('cat') == 'python_function' and e['name'].startswith('nn.Module: '))
    outer, end = [], -math.inf
    for m in modules:
        if m[0] >= end:
            outer.append(m)
            end = m[1]
    autograd = spans(lambda e: e.get('cat') == 'cpu_op' and e['name'].startswith('autograd::engine::evaluate_function'))
    out = []
    for s in steps:
        inside = [a for a in autograd if s[0] <= a[0] <= s[1]]
        out.append({'modules': sum(1 for m in outer if s[0] <= m[0] <= s[1]), 'autograd': len(inside),
                    'first_autograd_us': math.floor(min(a[0] for a in inside)) if inside else None,
                    'last_autograd_us': math.floor(max(a[1] for a in inside)) if inside else None})
    print(json.dumps({'steps': out, 'outer_modules': len(outer)}))


if __name__ == '__main__':
    main(sys.argv[1])
