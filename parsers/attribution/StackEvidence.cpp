#include "attribution/StackEvidence.h"

#include "attribution/FrameRole.h"

namespace memlens {

namespace {

bool mentions(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

bool isAccumulateGradFrame(std::string_view name)
{
    return mentions(name, "AccumulateGrad") || mentions(name, "accumulateGrad");
}

bool isEngineFrame(std::string_view name, std::string_view file, bool torchPython)
{
    if (mentions(name, "torch::autograd::Engine::") || name.starts_with("autograd::engine::evaluate_function") ||
        !autogradNodeName(name).empty() || isAccumulateGradFrame(name))
        return true;
    // backward() and autograd.grad() themselves, which the main thread runs until the engine is done.
    return torchPython && ((mentions(file, "torch/autograd/") && (name == "backward" || name == "grad" || name == "_engine_run_backward")) ||
                           (file.ends_with("torch/_tensor.py") && name == "backward"));
}

bool isOptimizerFrame(std::string_view name, std::string_view file, bool torchPython)
{
    if (name.starts_with("Optimizer.step#") || name.starts_with("Optimizer.zero_grad#"))
        return true; // the profiler's record_function range (torch/optim/optimizer.py's profile_hook_step)
    if (torchPython)
        return mentions(file, "torch/optim/") && !mentions(file, "lr_scheduler") && !mentions(file, "swa_utils");
    // Fused optimizers run one kernel per step: aten::_fused_adam_, _fused_adamw_, _fused_sgd_, …
    return mentions(name, "_fused_adam") || mentions(name, "_fused_sgd") || mentions(name, "_fused_adagrad");
}

bool isParameterInitFrame(std::string_view name, std::string_view file, bool torchPython)
{
    if (!torchPython)
        return false;
    if (mentions(file, "torch/nn/modules/module.py"))
        return name == "convert" || name == "_apply" || name == "to" || name == "_load_from_state_dict" || name == "load_state_dict";
    // FSDP's shards are the parameters a sharded run keeps (fully_shard makes them).
    if (mentions(file, "/fsdp/") && mentions(file, "_fsdp_param.py"))
        return name == "_init_sharded_param";
    return mentions(file, "torch/nn/init.py") || mentions(file, "torch/nn/parameter.py") ||
           (mentions(file, "torch/nn/modules/") && (name == "__init__" || name == "reset_parameters"));
}

// vLLM allocates its KV cache in functions named for it (v1's initialize_kv_cache,
// _allocate_kv_cache_tensors; v0's CacheEngine, Worker.initialize_cache), SGLang in mem_cache/.
bool isKvCacheFrame(std::string_view name, std::string_view file)
{
    if (mentions(file, "sglang/") && mentions(file, "/mem_cache/"))
        return true;
    return mentions(file, "vllm/") && (mentions(name, "kv_cache") || name == "initialize_cache" || mentions(file, "cache_engine.py"));
}

// Frameworks that keep the optimizer's state themselves make it where torch.optim is not on the
// stack: Megatron's distributed optimizer (its Adam state in init_state_fn, its fp32 main params),
// DeepSpeed ZeRO (its fp32 partitions, initialize_optimizer_states).
bool isFrameworkOptimizerStateFrame(std::string_view name, std::string_view file)
{
    if (mentions(file, "megatron/core/optimizer/"))
        return mentions(name, "init_state") || mentions(name, "main_param") || mentions(name, "optimizer_states");
    if (mentions(file, "deepspeed/runtime/zero/"))
        return mentions(name, "initialize_optimizer_states") || mentions(name, "fp32_partition") || mentions(name, "_create_fp32");
    return false;
}

bool isWorkspaceFrame(std::string_view name)
{
    return mentions(name, "getNewWorkspace") || mentions(name, "getCUDABlasLtWorkspace");
}

} // namespace

StackEvidence stackEvidence(const Snapshot &s, StackId stack)
{
    StackEvidence e;
    bool outermostPythonIsTorch = false;
    for (FrameId id : s.stacks.at(stack)) {
        const Frame &fr = s.frames.at(id);
        const std::string_view name = s.strings.at(fr.name), file = s.strings.at(fr.file);
        const FrameRole role = frameRole(name, file);
        const bool torchPython = role == FrameRole::TorchPython;
        if (isPythonRole(role)) {
            e.python = true;
            // Frames run innermost first: the last Python file seen is where the thread's Python began.
            if (!file.starts_with('<'))
                outermostPythonIsTorch = torchPython;
        }
        e.engine = e.engine || isEngineFrame(name, file, torchPython);
        e.accumulate = e.accumulate || isAccumulateGradFrame(name);
        e.moduleCall = e.moduleCall || name == "forward" || name.starts_with("nn.Module: ") ||
                       (torchPython && mentions(file, "torch/nn/modules/module.py") && (name == "_call_impl" || name == "_wrapped_call_impl"));
        const bool optimizer = isOptimizerFrame(name, file, torchPython);
        e.optimizer = e.optimizer || optimizer;
        e.optimizerInit = e.optimizerInit || (optimizer && torchPython && (name == "_init_group" || mentions(name, "init_state"))) ||
                          isFrameworkOptimizerStateFrame(name, file);
        e.workspace = e.workspace || isWorkspaceFrame(name);
        e.parameterInit = e.parameterInit || isParameterInitFrame(name, file, torchPython);
        e.kvCache = e.kvCache || isKvCacheFrame(name, file);
        if (e.megatronBufferLine == 0 && name == "__init__" && mentions(file, "megatron/core/distributed/param_and_grad_buffer.py"))
            e.megatronBufferLine = std::max<int64_t>(1, fr.line);
        e.gathered = e.gathered || ((mentions(file, "/fsdp/") || mentions(file, "deepspeed/runtime/zero")) &&
                                    (mentions(name, "all_gather") || mentions(name, "unshard") || mentions(name, "fetch")));
    }
    // A Python stack that begins in torch's own package was called from C++, not from a script:
    // the engine running a custom Function's backward, a checkpoint's recomputation or a hook.
    e.engine = e.engine || outermostPythonIsTorch;
    return e;
}

StackEvidenceCache::StackEvidenceCache(const Snapshot &snapshot)
    : snapshot_(snapshot), evidence_(snapshot.stacks.size()), known_(snapshot.stacks.size(), 0)
{
}

const StackEvidence &StackEvidenceCache::of(StackId stack)
{
    if (!known_[stack.index()]) {
        evidence_[stack.index()] = stackEvidence(snapshot_, stack);
        known_[stack.index()] = 1;
    }
    return evidence_[stack.index()];
}

ThreadSides ThreadSides::of(const EventTable &events, StackEvidenceCache &evidence)
{
    ThreadSides sides;
    for (uint32_t e = 0; e < events.count() && !sides.pythonRecorded; ++e)
        sides.pythonRecorded = events.action[e] == Action::Alloc && evidence.of(events.stack[e]).python;
    return sides;
}

} // namespace memlens
