#include "cli/HelpCommand.h"

#include "cli/RenderCommand.h"

#include <iostream>

namespace memlens {

int runHelpCommand()
{
    std::cout
        << "usage: memlens [--theme light|dark|system] [--no-cache] [FILE|DIR...]   open the GUI (files, folders of ranks, .memlens sessions)\n"
           "\n"
           "       memlens summary FILE [--device N] [--top K] [--at peak|oom|end|EVENT] [--gpu PRESET] [--json] [--no-cache]\n"
           "       memlens summary FILE --folded [--bottom-up] [--at peak|oom|end|EVENT] [--device N]\n"
           "           key figures, or the live stacks as folded lines\n"
           "       memlens summary DIR [--step N] [--threads N] [--json] [--no-cache]\n"
           "           per-rank peaks of a folder of snapshots (one per GPU), the imbalance\n"
           "       memlens summary DIR --rank R --stitch [--top K] [--json] [--no-cache]\n"
           "           one rank's dumps (one every N steps) as one run: shared entries once, gaps reported\n"
           "\n"
           "       memlens watch DIR [--json-lines] [--fail-if-peak-grows PCT] [--interval SECONDS] [--no-cache]\n"
           "           one line per dump as a running job writes it (rank, step, peaks, change); exit 3\n"
           "           when a rank's peak grows more than PCT % over its first dump\n"
           "\n"
           "       memlens render FILE --view VIEW -o OUT.png|OUT.svg [--at peak|oom|end|EVENT] [--range A:B]\n"
           "           [--search TEXT]  (timeline: outline the allocations whose frames, labels, metadata or address match)\n"
           "           [--device N] [--rank R (FILE: a folder of dumps, R's stitched)] [--size WxH] [--theme light|dark]\n"
           "           [--color allocation|site|category] [--footer] [--session S.memlens] [--no-cache]\n"
           "           [--compare B [--align time|event|step]]\n"
           "           [--fix TECHNIQUE]  (estimator: one of `memlens advise`'s fixes, applied)\n"
           "           [--what-if CONF]  (timeline, segments: the replay under PYTORCH_CUDA_ALLOC_CONF=CONF)\n"
           "           VIEW: " << renderViewNames(", ") << "\n"
           "\n"
           "       memlens diff A B [--at peak|oom|end|EVENT] [--device N] [--top K] [--json | --markdown]\n"
           "           [--fail-if-peak-grows PCT] [--fail-if-reserved-grows PCT] [--no-cache]\n"
           "           peaks, categories and live bytes by call site in A and B; exit 3 over a limit\n"
           "\n"
           "       memlens advise FILE [--device N] [--at peak|oom|end|EVENT] [--gpu PRESET | --capacity BYTES] [--gpus N]\n"
           "           [--sort effort|saves] [--json] [--no-cache]\n"
           "           the setup the snapshot reveals and the fixes: what fits first, least effort first\n"
           "\n"
           "       memlens replay FILE [--device N] [--alloc-conf CONF] [--gpu PRESET | --capacity BYTES] [--json]\n"
           "           [--no-cache]\n"
           "           the trace through a model of torch's caching allocator: reserved peak, segments and OOM\n"
           "           under CONF (PYTORCH_CUDA_ALLOC_CONF syntax; default: the file's own setting)\n"
           "\n"
           "       memlens estimate [--model PRESET | --layers L --hidden H --heads A --vocab V [--kv-heads K]\n"
           "           [--intermediate I] [--mlp gelu|swiglu] [--tied]] [--mode train|inference]\n"
           "           [--precision fp32|amp-bf16|bf16|fp16-amp] [--optimizer adamw|adamw8bit|sgd|adafactor|lion|none]\n"
           "           [--fused] [--batch B] [--seq S | --image-size N] [--new-tokens N] [--grad-accum N]\n"
           "           [--checkpointing none|selective|full] [--attention sdpa|flash|eager] [--lora-r R]\n"
           "           [--lora-targets attention|all-linear] [--lora-dropout P] [--qlora] [--zero 0-3] [--gpus N]\n"
           "           [--offload-optimizer] [--gpu PRESET] [--fit batch|seq] [--json]\n"
           "           predicted peak memory of a training or inference setup\n"
           "\n"
           "       memlens mcp [--root DIR]...\n"
           "           a Model Context Protocol server on stdin/stdout for coding agents: the figures above as tools,\n"
           "           over files below the --root directories (default: the current one)\n"
           "\n"
           "       memlens --version | -V\n"
           "           the version, with Qt's, zstd's and the snapshot cache's format\n"
           "       memlens --list views|models|gpus|options COMMAND\n"
           "           the names --view, --model and --gpu take, or a command's options, one per line (for shell completion)\n"
           "\n"
           "--no-cache: neither read nor write the decoded-snapshot cache ($XDG_CACHE_HOME/memlens)\n"
           "Exit codes: 0 done, 1 a file could not be read, 2 wrong usage, 3 (diff) over a --fail-if limit.\n"
           "The README has every JSON key.\n";
    return 0;
}

} // namespace memlens
