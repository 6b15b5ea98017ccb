#pragma once
// What a recorded stack shows of the code that ran, read from the names torch, Python and the
// autograd engine give their own code, never from a name the user chose: a training function may
// be called forward_backward_step, and a user's file carries no forward/backward marks.
// Categories and steps (figures/) are built on this.
#include "model/Snapshot.h"

#include <vector>

namespace memlens {

struct StackEvidence {
    bool python = false;        // any Python frame
    bool engine = false;        // autograd's engine: its C++ loop, a node's apply, AccumulateGrad,
                                // torch.autograd's Python (backward(), a custom Function's backward)
    bool accumulate = false;    // AccumulateGrad: a parameter's gradient
    bool moduleCall = false;    // inside an nn.Module's call (module.py's _call_impl, a forward)
    bool optimizer = false;     // torch.optim's step / zero_grad (not its LR schedulers), a fused
                                // optimizer kernel, or the profiler's Optimizer.step# range
    bool optimizerInit = false; // where optimizers create their state (Adam's _init_group, …; Megatron's
                                // distributed optimizer: init_state_fn, its fp32 main params; DeepSpeed
                                // ZeRO's fp32 partitions and optimizer states)
    bool parameterInit = false; // a module built, moved or loaded: nn.Module __init__, .to/_apply,
                                // nn.init, reset_parameters, load_state_dict
    bool gathered = false;      // a sharded parameter gathered whole for its layer (FSDP, ZeRO-3)
    bool kvCache = false;       // a serving framework allocating its KV cache (vLLM, SGLang)
    bool workspace = false;     // cuBLAS's / cuBLASLt's workspace (at::cuda::getNewWorkspace, any size)
    int64_t megatronBufferLine = 0; // > 0: made in Megatron's _ParamAndGradBuffer.__init__, at that line
};

StackEvidence stackEvidence(const Snapshot &snapshot, StackId stack);

// Each stack's evidence, read once per stack on first use: traces repeat a few thousand stacks
// over millions of entries.
class StackEvidenceCache {
public:
    explicit StackEvidenceCache(const Snapshot &snapshot);
    const StackEvidence &of(StackId stack);

private:
    const Snapshot &snapshot_;
    std::vector<StackEvidence> evidence_;
    std::vector<uint8_t> known_;
};

// Which side of backward() an entry ran on: the autograd engine's, or the script's own thread.
// Stacks recorded with Python show the script's frames on its thread and none on the engine's
// (torch records no Python there unless the engine calls back into torch's own); C++ stacks name
// the engine's frames.
struct ThreadSides {
    bool pythonRecorded = false; // some allocation has a Python frame: a stack without one is the engine's
    static ThreadSides of(const EventTable &events, StackEvidenceCache &evidence);
    bool engine(const StackEvidence &e) const { return e.engine || (pythonRecorded && !e.python); }
    bool script(const StackEvidence &e, StackId stack) const
    {
        return !engine(e) && (pythonRecorded ? e.python : stack != StackTable::kEmpty);
    }
};

} // namespace memlens
