#!/usr/bin/env python3
"""Writes a corpus run as users record theirs: without the forward / backward / optimizer
record_function marks our recording script (tests/corpus/gen) added, which no user's file carries.

    make_user_variants.py SOURCE OUT --marks torch|none [--rename NAME] [--forward-oom]
    make_user_variants.py SOURCE DIR --all   (DIR/torch.pickle, none.pickle and one per NAME below)

--marks torch  keeps what torch writes by itself (Optimizer.step#…, Optimizer.zero_grad#…);
--marks none   removes every mark (older torch, or a run recorded outside any profiler hook).
--rename NAME  renames the script's own functions (every frame of the recording script but its
               <module>) to NAME, as a user's training function is called forward_backward_step
               (torchtitan), forward_backward_func (Megatron) or train_forward_backward.
--forward-oom  cuts the run where active memory peaks in the first iteration's forward, before any
               backward, with an OOM entry there and the allocator state of that moment.
Prints {"steps": S, "forward_oom": bool}: the training steps the source holds (0 when cut); with
--all, {"files": [...]} as well.
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
    ap.add_argument('--all', action='store_true')
    args = ap.parse_args()
    data = open_any(args.source)
    if not args.all:
        steps = variant(data, args.marks or 'none', args.rename, args.forward_oom)
        write(data, args.out)
        print(json.dumps({'steps': steps, 'forward_oom': args.forward_oom}))
        return
    os.makedirs(args.out, exist_ok=True)
    source = pickle.dumps(data, protocol=4)
    files = []
    for name, marks, rename in [('torch', 'torch', None), ('none', 'none', None)] + [(n, 'none', n) for n in USERS_NAMES]:
        copy = pickle.loads(source)
        steps = variant(copy, marks, rename)
        files.append(os.path.join(args.out, name + '.pickle'))
        write(copy, files[-1])
    print(json.dumps({'steps': steps, 'forward_oom': False, 'files': files}))


if __name__ == '__main__':
    main()
