#include "figures/ModelLayers.h"

#include "attribution/FrameRole.h"
#include "figures/MarkedLayers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace memlens {

namespace {

bool isPython(std::string_view file)
{
    return file.ends_with(".py");
}

bool isModuleCall(std::string_view name, std::string_view file)
{
    return file.ends_with("torch/nn/modules/module.py") && (name == "_call_impl" || name == "_wrapped_call_impl");
}

// torch.utils.checkpoint's frames: a checkpointed layer runs the same code as one that is not.
bool isCheckpoint(std::string_view file)
{
    return file.ends_with("torch/utils/checkpoint.py");
}

// torch's own Python between a model's line and the module it calls (checkpoint, dynamo's frame
// evaluation, nn.Sequential's loop) is not the caller: the model's line outside it is.
bool isTorchPython(std::string_view name, std::string_view file)
{
    return frameRole(name, file) == FrameRole::TorchPython;
}

// Per stack, the frames that call a module on the way to its allocation, outermost first (for
// each run of torch's module-call frames, the first Python frame outside it, C++ and checkpoint
// frames between skipped), and what the stack is with checkpoint frames left out.
class CallerChains {
public:
    struct Of {
        std::vector<FrameId> chain;
        uint32_t key = 0; // equal for stacks equal but for checkpoint frames
    };

    explicit CallerChains(const Snapshot &snapshot) : snapshot_(snapshot) {}

    const Of &of(StackId stack)
    {
        auto [it, made] = stacks_.try_emplace(stack.index());
        if (made)
            it->second = make(stack);
        return it->second;
    }

private:
    std::string_view text(StringId id) const { return snapshot_.strings.at(id); }

    Of make(StackId stack)
    {
        const std::span<const FrameId> frames = snapshot_.stacks.at(stack); // innermost first
        auto frame = [&](size_t i) -> const Frame & { return snapshot_.frames.at(frames[i]); };
        auto skipped = [&](size_t i) {
            const Frame &f = frame(i);
            return !isPython(text(f.file)) || isTorchPython(text(f.name), text(f.file));
        };
        Of out;
        for (size_t i = 0; i < frames.size(); ++i) {
            if (!isModuleCall(text(frame(i).name), text(frame(i).file)))
                continue;
            size_t j = i + 1;
            while (j < frames.size() && skipped(j))
                ++j;
            if (j == frames.size())
                break;
            out.chain.push_back(frames[j]);
            i = j;
        }
        std::vector<FrameId> kept;
        for (size_t i = 0; i < frames.size(); ++i) {
            if (!isCheckpoint(text(frame(i).file)))
                kept.push_back(frames[i]);
        }
        std::reverse(out.chain.begin(), out.chain.end());
        out.key = keys_.try_emplace(std::move(kept), static_cast<uint32_t>(keys_.size())).first->second;
        return out;
    }

    const Snapshot &snapshot_;
    std::unordered_map<uint32_t, Of> stacks_;
    std::map<std::vector<FrameId>, uint32_t> keys_;
};

struct PassAlloc {
    EventId entry;
    StackId stack;
    uint32_t key; // the stack, checkpoint frames left out
    const std::vector<FrameId> *chain;
};

// The calls of a repeated module call: a new call where the first call's first stack comes back
// after something else. Nothing unless there are at least two calls and most make as many
// allocations as the commonest count (identical layers allocate alike).
struct Calls {
    std::vector<size_t> starts;
    size_t length = 0; // the commonest number of allocations in a call
};

std::optional<Calls> callsOf(const std::vector<uint32_t> &stacks)
{
    Calls calls;
    for (size_t i = 0; i < stacks.size(); ++i) {
        if (stacks[i] == stacks[0] && (i == 0 || stacks[i - 1] != stacks[0]))
            calls.starts.push_back(i);
    }
    if (calls.starts.size() < 2)
        return std::nullopt;
    std::map<size_t, size_t> lengths;
    for (size_t k = 0; k < calls.starts.size(); ++k)
        ++lengths[(k + 1 < calls.starts.size() ? calls.starts[k + 1] : stacks.size()) - calls.starts[k]];
    size_t commonest = 0;
    for (const auto &[length, n] : lengths) {
        if (n > commonest)
            commonest = n, calls.length = length;
    }
    if (commonest * 2 < calls.starts.size())
        return std::nullopt;
    return calls;
}

// The allocations of a pass made under `caller` at `depth` of their chains.
std::vector<const PassAlloc *> under(const std::vector<PassAlloc> &pass, size_t depth, FrameId caller)
{
    std::vector<const PassAlloc *> out;
    for (const PassAlloc &a : pass) {
        if (a.chain->size() > depth && (*a.chain)[depth] == caller)
            out.push_back(&a);
    }
    return out;
}

std::vector<uint32_t> stacksOf(const std::vector<const PassAlloc *> &allocs)
{
    std::vector<uint32_t> stacks;
    stacks.reserve(allocs.size());
    for (const PassAlloc *a : allocs)
        stacks.push_back(a->key);
    return stacks;
}

struct Loop {
    size_t depth = 0;
    FrameId caller;
    size_t calls = 0;
};

// Whether every allocation under a caller goes on through one and the same caller inside it: a
// stage that calls one module (ResNet's `self.layer3(x)`), whose repetition belongs to the loop
// inside, not to it.
bool passesThrough(const std::vector<const PassAlloc *> &allocs, size_t depth)
{
    for (const PassAlloc *a : allocs) {
        if (a->chain->size() <= depth + 1 || (*a->chain)[depth + 1] != (*allocs.front()->chain)[depth + 1])
            return false;
    }
    return true;
}

// The outermost line of a model's code in this pass whose calls repeat. Several such lines at
// that depth (ResNet's four stages, each looping over its blocks inside nn.Sequential) are no
// single layer loop: none.
std::optional<Loop> findLoop(const std::vector<PassAlloc> &pass)
{
    size_t deepest = 0;
    for (const PassAlloc &a : pass)
        deepest = std::max(deepest, a.chain->size());
    for (size_t depth = 0; depth < deepest; ++depth) {
        std::map<uint32_t, std::vector<const PassAlloc *>> byCaller; // in one sweep, each caller's allocations in order
        for (const PassAlloc &a : pass) {
            if (a.chain->size() > depth)
                byCaller[(*a.chain)[depth].index()].push_back(&a);
        }
        std::vector<Loop> repeating;
        for (const auto &[caller, allocs] : byCaller) {
            if (passesThrough(allocs, depth))
                continue;
            if (const auto calls = callsOf(stacksOf(allocs)))
                repeating.push_back({depth, FrameId(caller), calls->starts.size()});
        }
        if (repeating.size() == 1)
            return repeating.front();
        if (repeating.size() > 1)
            return std::nullopt;
    }
    return std::nullopt;
}

// The line of the model's forward that the loop is on: the caller, or the first `forward` frame
// outside it (past a layer class's own `__call__`, HF's GradientCheckpointingLayer).
FrameId lineOfLoop(const Snapshot &snapshot, StackId stack, FrameId caller)
{
    const std::span<const FrameId> frames = snapshot.stacks.at(stack);
    const auto at = std::find(frames.begin(), frames.end(), caller);
    for (auto it = at; it != frames.end(); ++it) {
        if (snapshot.strings.at(snapshot.frames.at(*it).name) == "forward")
            return *it;
    }
    return caller;
}

// Passes a loop is looked for in: enough to outvote a first pass cut by the trace's start.
constexpr size_t kPassesAsked = 8;

} // namespace

ModelLayers::ModelLayers(const Snapshot &snapshot, const DeviceIndex &index, const StepParts &parts, const ModuleUnits *units)
{
    if (units) {
        if (std::optional<MarkedLayers> marked = layersFromUnits(index, parts, *units)) {
            source_ = units->source() == UnitSource::FsdpMarks ? LayerSource::FsdpMarks : LayerSource::ModuleMarks;
            markedStack_ = std::move(marked->stack);
            count_ = marked->count;
            windows_ = std::move(marked->windows);
            return;
        }
    }
    fromStacks(snapshot, index, parts);
}

void ModelLayers::fromStacks(const Snapshot &snapshot, const DeviceIndex &index, const StepParts &parts)
{
    const EventTable &events = index.events();
    CallerChains chains(snapshot);
    // The forward passes: each a run of entries the evidence puts in the forward part. A pass's
    // allocations whose stacks call a module are gathered when it is looked at, one pass at a
    // time (a 4,000-step run held them all at once).
    const std::vector<std::pair<EventId, EventId>> passes = parts.runsOf(StepPart::Forward);
    auto allocsOf = [&](const std::pair<EventId, EventId> &pass) {
        std::vector<PassAlloc> out;
        for (uint32_t e = pass.first.index(); e < pass.second.index(); ++e) {
            if (events.action[e] != Action::Alloc)
                continue;
            const CallerChains::Of &of = chains.of(events.stack[e]);
            if (!of.chain.empty())
                out.push_back({EventId(e), events.stack[e], of.key, &of.chain});
        }
        return out;
    };
    // The loop and its count from the passes that show one, the commonest.
    std::map<std::pair<size_t, uint32_t>, std::map<size_t, size_t>> seen; // (depth, caller) → calls → passes
    size_t asked = 0;
    for (const auto &run : passes) {
        const std::vector<PassAlloc> pass = allocsOf(run);
        if (pass.empty())
            continue;
        if (asked++ == kPassesAsked)
            break;
        if (const std::optional<Loop> loop = findLoop(pass))
            ++seen[{loop->depth, loop->caller.index()}][loop->calls];
    }
    size_t votes = 0, depth = 0, calls = 0;
    for (const auto &[key, byCalls] : seen) {
        for (const auto &[n, passCount] : byCalls) {
            if (passCount > votes)
                votes = passCount, depth = key.first, loop_ = FrameId(key.second), calls = n;
        }
    }
    if (!votes)
        return;
    count_ = static_cast<uint32_t>(calls);
    for (size_t p = 0; p < passes.size(); ++p) {
        const std::vector<PassAlloc> pass = allocsOf(passes[p]);
        const std::vector<const PassAlloc *> allocs = under(pass, depth, loop_);
        const auto calls = allocs.empty() ? std::nullopt : callsOf(stacksOf(allocs));
        if (!calls || calls->starts.size() != count_)
            continue; // a pass cut by the trace's start, or one that ran other layers
        const std::vector<size_t> &starts = calls->starts;
        for (size_t k = 0; k < starts.size(); ++k) {
            // A layer is its allocations (the last makes as many as the others) and the frees up to
            // the next allocation: not what comes between layers (FSDP's gather of the next unit).
            const size_t last = (k + 1 < starts.size() ? starts[k + 1] : std::min(starts.back() + calls->length, allocs.size())) - 1;
            uint32_t end = allocs[last]->entry.index() + 1;
            while (end < passes[p].second.index() && events.action[end] != Action::Alloc)
                ++end;
            windows_.push_back({static_cast<uint32_t>(p), static_cast<uint32_t>(k), allocs[starts[k]]->entry, EventId(end)});
        }
        if (line_.isNone())
            line_ = lineOfLoop(snapshot, allocs.front()->stack, loop_);
    }
    if (windows_.empty())
        count_ = 0, loop_ = FrameId::none();
}

} // namespace memlens
