#include "figures/AllocationCategories.h"

#include "index/FrameFilter.h"
#include "model/IdVector.h"
#include "index/Phases.h"
#include "attribution/FrameRole.h"

#include <algorithm>

namespace memlens {

namespace {

constexpr uint64_t kCublasWorkspace = 32ull << 20; // cuBLAS's default on Hopper (CUBLAS_WORKSPACE_CONFIG :4096:8)

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

struct StackFacts {
    bool optim = false;     // a frame in torch/optim
    bool optimInit = false; // where optimizers create their state (Adam's _init_group, …)
    bool moduleTo = false;  // Module.to / _apply / convert, parameter initialisation
    bool gathered = false;  // a sharded parameter gathered whole for its layer (FSDP, ZeRO-3)
    bool forward = false;   // inside a module's forward
    bool backward = false;  // autograd engine frames or a backward function
    bool accumulate = false; // AccumulateGrad
    bool python = false;    // any Python frame at all
};

// The frames the site rule reads (attribution/): mixed C++ / Python stacks carry dozens of
// allocator, dispatcher and interpreter frames that say nothing of what the memory is for.
StackFacts factsOf(const Snapshot &s, StackId stack)
{
    StackFacts f;
    for (FrameId id : stackFrames(s, stack, true)) {
        const Frame &fr = s.frames.at(id);
        const std::string_view name = s.strings.at(fr.name), file = s.strings.at(fr.file);
        f.python = f.python || isPythonRole(frameRole(name, file));
        f.gathered = f.gathered || ((contains(file, "/fsdp/") || contains(file, "deepspeed/runtime/zero")) &&
                                    (contains(name, "all_gather") || contains(name, "unshard") || contains(name, "fetch")));
        // A profiler trace without Python stacks still names the step's record_function range:
        // "Optimizer.step#AdamW.step" (torch/optim/optimizer.py's profile_hook_step).
        f.optim = f.optim || contains(file, "torch/optim/") || name.starts_with("Optimizer.step#");
        f.optimInit = f.optimInit || (contains(file, "torch/optim/") && (name == "_init_group" || contains(name, "init_state")));
        f.moduleTo = f.moduleTo || (contains(file, "torch/nn/modules/module.py") && (name == "convert" || name == "_apply" || name == "to")) ||
                     contains(file, "torch/nn/init.py") || name == "reset_parameters" || name == "_load_from_state_dict";
        f.forward = f.forward || name == "forward";
        f.backward = f.backward || !autogradNodeName(name).empty() || contains(name, "backward");
        f.accumulate = f.accumulate || contains(name, "AccumulateGrad") || contains(name, "accumulateGrad");
    }
    return f;
}

} // namespace

std::string_view categoryName(Category c)
{
    static constexpr std::string_view names[kCategoryCount] = {"parameter", "gradient", "optimizer_state", "activation", "temporary", "unknown"};
    return names[static_cast<int>(c)];
}

AllocationCategories::AllocationCategories(const Snapshot &snapshot, const DeviceIndex &index) : index_(index)
{
    const EventTable &ev = index.events();
    const Phases phases(snapshot, index.device());
    const std::vector<int32_t> eventPhase = phases.classifyEvents(ev);
    const bool phased = phases.classified();
    auto phaseAt = [&](EventId e) { return phased && e.index() < ev.count() ? phases.kind(eventPhase[e.index()]) : StepPart::None; };

    // A snapshot dumped at an OOM cut a step short: what it still holds was not yet freed.
    const bool cutShort = !index.oomEvents().empty();
    IdVector<StackId, int8_t> known(snapshot.stacks.size(), 0);
    IdVector<StackId, StackFacts> facts(snapshot.stacks.size());
    auto factsFor = [&](StackId stack) -> const StackFacts & {
        if (!known[stack]) {
            facts[stack] = factsOf(snapshot, stack);
            known[stack] = 1;
        }
        return facts[stack];
    };
    // Outside the pass phases (a run marked per layer only, FSDP's hooks) the stacks tell the
    // passes apart: backward runs autograd's nodes, on a thread without Python frames.
    auto backwardStack = [](const StackFacts &f) { return f.backward || !f.python; };
    std::vector<uint32_t> backwardAllocs; // alloc entries made by backward, in event order
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (ev.action[e] == Action::Alloc && phaseAt(EventId(e)) == StepPart::None && backwardStack(factsFor(ev.stack[e])))
            backwardAllocs.push_back(e);
    }
    auto backwardBetween = [&](EventId from, EventId to) {
        const auto it = std::upper_bound(backwardAllocs.begin(), backwardAllocs.end(), from.index());
        return it != backwardAllocs.end() && *it < to.index();
    };
    categories_.assign(index.allocationCount(), Category::Unknown);
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const AllocationId id(i);
        const Allocation &a = index.allocation(id);
        const AllocationDetail d = index.detail(id);
        const StackFacts &f = factsFor(d.stack);
        const bool neverFreed = a.freeCompleted == kNever;
        const bool born = !a.fromBeforeTrace();
        const StepPart bornIn = born ? phaseAt(a.allocEvent) : StepPart::None;
        const StepPart freedIn = a.freeCompleted != kNever ? phaseAt(a.freeCompleted) : StepPart::None;
        const bool outlivesPhase = born && bornIn != StepPart::None &&
                                   (neverFreed || ev.timeUs[a.freeCompleted.index()] > phases.end(eventPhase[a.allocEvent.index()]));
        Category c = Category::Unknown;
        if (f.optim) {
            // State is created once and kept; everything else an optimizer step allocates
            // (foreach temporaries) is gone by its end, unless the dump cut the step short.
            const bool kept = neverFreed || outlivesPhase;
            c = kept && (f.optimInit || !cutShort) ? Category::OptimizerState : Category::Temporary;
        } else if (f.moduleTo) {
            c = neverFreed ? Category::Parameter : Category::Temporary;
        } else if (f.gathered) {
            c = Category::Parameter; // freed again after its layer, but parameters all the same
        } else if (neverFreed && !f.python && !f.accumulate && d.size == kCublasWorkspace) {
            c = Category::Unknown; // cuBLAS's workspace, created by the first matmul and kept
        } else if (f.accumulate ||
                   (born && (bornIn == StepPart::Backward || (bornIn == StepPart::None && backwardStack(f))) &&
                    (neverFreed || freedIn == StepPart::Optimizer || outlivesPhase))) {
            // Autograd's gradient accumulation, or what backward creates and the optimizer step
            // still uses (gradients live until zero_grad).
            c = Category::Gradient;
        } else if (born && (bornIn == StepPart::Forward || (bornIn == StepPart::None && f.forward && !f.backward))) {
            // Kept for backward: freed in it, or still alive when the dump cut a step short.
            // Forward allocations that outlive every step are caches (masks, rotary tables).
            if (neverFreed)
                c = cutShort ? Category::Activation : Category::Unknown;
            else if (freedIn == StepPart::Backward || (!phased && !f.python) || outlivesPhase ||
                     (bornIn == StepPart::None && backwardBetween(a.allocEvent, a.freeCompleted)))
                c = Category::Activation;
            else
                c = Category::Temporary;
        } else if (born && !neverFreed && !outlivesPhase && bornIn != StepPart::None) {
            c = Category::Temporary;
        } else if (born && !neverFreed && bornIn == StepPart::None && backwardStack(f)) {
            c = Category::Temporary; // freed by backward itself, before the optimizer
        }
        categories_[i] = c;
    }
    buildTotals();
}

void AllocationCategories::applyEvent(std::array<int64_t, kCategoryCount> &totals, EventId e) const
{
    index_.forEachLiveChange(e, [&](AllocationId id, int64_t bytes) { totals[static_cast<size_t>(of(id))] += bytes; });
}

void AllocationCategories::buildTotals()
{
    const EventTable &ev = index_.events();
    std::array<int64_t, kCategoryCount> totals{};
    for (AllocationId id : index_.liveAt(TracePoint::start()))
        totals[static_cast<size_t>(of(id))] += static_cast<int64_t>(index_.requestedBytes(id));
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (e % kCheckpointEvery == 0)
            checkpoints_.push_back(totals);
        applyEvent(totals, EventId(e));
    }
    if (checkpoints_.empty())
        checkpoints_.push_back(totals);
}

std::array<uint64_t, kCategoryCount> AllocationCategories::totalsAt(TracePoint at) const
{
    const EventTable &ev = index_.events();
    std::array<uint64_t, kCategoryCount> out{};
    if (at.isStart() || ev.count() == 0) {
        for (int c = 0; c < kCategoryCount; ++c)
            out[static_cast<size_t>(c)] = static_cast<uint64_t>(std::max<int64_t>(0, checkpoints_.front()[static_cast<size_t>(c)]));
        return out;
    }
    const uint32_t e = at.lastEntry().index();
    const uint32_t k = e / kCheckpointEvery;
    std::array<int64_t, kCategoryCount> totals = checkpoints_[k];
    for (uint32_t j = k * kCheckpointEvery; j <= e; ++j)
        applyEvent(totals, EventId(j));
    for (int c = 0; c < kCategoryCount; ++c)
        out[static_cast<size_t>(c)] = static_cast<uint64_t>(std::max<int64_t>(0, totals[static_cast<size_t>(c)]));
    return out;
}

std::array<uint64_t, kCategoryCount> AllocationCategories::bytesAt(const DeviceIndex &index, TracePoint t) const
{
    std::array<uint64_t, kCategoryCount> bytes{};
    for (AllocationId id : index.liveAt(t))
        bytes[static_cast<size_t>(of(id))] += index.requestedBytes(id);
    return bytes;
}

} // namespace memlens
