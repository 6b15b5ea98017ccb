#include "figures/AllocationCategories.h"

#include "attribution/StackEvidence.h"
#include "figures/StepParts.h"

#include <algorithm>
#include <bit>
#include <optional>

namespace memlens {

namespace {

constexpr uint64_t kCublasWorkspace = 32ull << 20; // cuBLAS's default on Hopper (CUBLAS_WORKSPACE_CONFIG :4096:8)

// One bit per entry: "is there one after entry a and before entry b?" scans words, not entries.
class EntryBits {
public:
    explicit EntryBits(size_t count) : words_((count + 63) / 64, 0) {}
    void set(uint32_t e) { words_[e / 64] |= uint64_t(1) << (e % 64); }
    // Whether a set entry lies strictly between `after` and `before`.
    bool anyBetween(uint32_t after, uint32_t before) const
    {
        for (uint32_t e = after + 1; e < before;) {
            const uint64_t word = words_[e / 64] >> (e % 64);
            if (word != 0)
                return e + static_cast<uint32_t>(std::countr_zero(word)) < before;
            e = (e / 64 + 1) * 64;
        }
        return false;
    }

private:
    std::vector<uint64_t> words_;
};

// Megatron's DDP makes its flat buffers in _ParamAndGradBuffer.__init__: `param_data` (with the
// distributed optimizer) a few lines above `grad_data`, in every release. Line numbers differ by
// release, their order does not: with two lines seen, the first is the parameters'; with one, the
// gradients' (the only buffer without the distributed optimizer).
struct MegatronBufferLines {
    int64_t first = 0;
    bool two = false;
    // An allocation's line (0: not made there).
    void see(int64_t line)
    {
        if (line <= 0 || line == first)
            return;
        two = first != 0;
        first = first == 0 ? line : std::min(first, line);
    }
    bool isParameterBuffer(int64_t line) const { return two && line == first; }
};

// A block from before the trace has no entry: what made it is all its frames tell. Anything
// kept from before the trace lives across steps, so what a module's init or an optimizer's state
// made is still that.
Category beforeTrace(const StackEvidence &f, const MegatronBufferLines &megatron)
{
    if (f.kvCache)
        return Category::KvCache;
    if (f.megatronBufferLine > 0)
        return megatron.isParameterBuffer(f.megatronBufferLine) ? Category::Parameter : Category::Gradient;
    if (f.optimizer || f.optimizerInit)
        return Category::OptimizerState;
    if (f.parameterInit || f.gathered)
        return Category::Parameter;
    return Category::Unknown;
}

} // namespace

std::string_view categoryName(Category c)
{
    static constexpr std::string_view names[kCategoryCount] = {"parameter", "gradient", "optimizer_state", "activation", "temporary", "kv_cache", "unknown"};
    return names[static_cast<int>(c)];
}

std::string_view categoryLabel(Category c)
{
    static constexpr std::string_view labels[kCategoryCount] = {"parameter", "gradient", "optimizer state", "activation", "temporary", "KV cache", "unknown"};
    return labels[static_cast<int>(c)];
}

// The rules read what the stacks show (attribution/StackEvidence): who made an allocation, who
// freed it, and whether backward ran or the script went on in between. No phase name a user
// chose (their marks, their training function's name) decides a category.
AllocationCategories::AllocationCategories(const Snapshot &snapshot, const DeviceIndex &index) : index_(index)
{
    const EventTable &ev = index.events();
    StackEvidenceCache evidence(snapshot);
    const ThreadSides sides = ThreadSides::of(ev, evidence);
    bool freesRecorded = false; // context="all": a free's stack is the freeing thread's
    for (uint32_t e = 0; e < ev.count() && !freesRecorded; ++e)
        freesRecorded = (ev.action[e] == Action::FreeRequested || ev.action[e] == Action::FreeCompleted) && ev.stack[e] != StackTable::kEmpty;
    // Without the frees' stacks (context="alloc") the part of the step a free falls in tells
    // whether backward was over by then.
    std::optional<StepParts> parts;
    if (!freesRecorded)
        parts.emplace(snapshot, index, phaseRanges(snapshot, index.device()));
    EntryBits scriptAllocs(ev.count()), engineAllocs(ev.count());
    MegatronBufferLines megatron;
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (ev.action[e] != Action::Alloc)
            continue;
        const StackEvidence &f = evidence.of(ev.stack[e]);
        megatron.see(f.megatronBufferLine);
        if (sides.engine(f))
            engineAllocs.set(e);
        else if (sides.script(f, ev.stack[e]))
            scriptAllocs.set(e);
    }
    // Blocks from before the trace: their stacks are the final snapshot's, read once.
    std::vector<std::pair<uint32_t, const StackEvidence *>> older;
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        if (index.allocation(AllocationId(i)).fromBeforeTrace()) {
            older.emplace_back(i, &evidence.of(index.detail(AllocationId(i)).stack));
            megatron.see(older.back().second->megatronBufferLine);
        }
    }
    // A snapshot dumped at an OOM cut a step short: what it still holds was not yet freed. The
    // process stopped at the OOM whichever device it struck, so every device's step was cut.
    const bool cutShort = std::any_of(snapshot.traces.begin(), snapshot.traces.end(), [](const EventTable &trace) {
        return std::find(trace.action.begin(), trace.action.end(), Action::Oom) != trace.action.end();
    });
    categories_.assign(index.allocationCount(), Category::Unknown);
    for (const auto &[i, f] : older)
        categories_[i] = beforeTrace(*f, megatron);
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const Allocation &a = index.allocation(AllocationId(i));
        if (a.fromBeforeTrace())
            continue;
        const StackEvidence &f = evidence.of(ev.stack[a.allocEvent.index()]);
        const bool neverFreed = a.freeCompleted == kNever;
        const EventId freeEvent = a.firstFree();
        const StackEvidence *freedBy = !neverFreed && freesRecorded ? &evidence.of(ev.stack[freeEvent.index()]) : nullptr;
        const uint32_t born = a.allocEvent.index(), gone = neverFreed ? ev.count() : a.freeCompleted.index();
        // Outlived a backward pass: kept across a step, whatever frees it at the end (a script
        // that deletes its model and optimizer before it dumps).
        const bool outlivedBackward = neverFreed || engineAllocs.anyBetween(born, gone);
        Category c = Category::Unknown;
        if (f.kvCache) {
            c = Category::KvCache;
        } else if (f.megatronBufferLine > 0) {
            c = megatron.isParameterBuffer(f.megatronBufferLine) ? Category::Parameter : Category::Gradient;
        } else if (f.optimizer) {
            // State is created once and kept; everything else an optimizer step allocates
            // (foreach temporaries) is gone by its end, unless the dump cut the step short.
            const bool kept = neverFreed || (freedBy ? !freedBy->optimizer : engineAllocs.anyBetween(born, gone));
            c = kept && (f.optimizerInit || !cutShort) ? Category::OptimizerState : Category::Temporary;
        } else if (f.optimizerInit) {
            c = outlivedBackward ? Category::OptimizerState : Category::Temporary; // a framework's own optimizer
        } else if (f.parameterInit) {
            c = outlivedBackward ? Category::Parameter : Category::Temporary;
        } else if (f.gathered) {
            c = Category::Parameter; // freed again after its layer, but parameters all the same
        } else if (f.workspace || (!f.python && !f.accumulate && index.requestedBytes(AllocationId(i)) == kCublasWorkspace &&
                                   (neverFreed || (freedBy && sides.script(*freedBy, ev.stack[freeEvent.index()]))))) {
            c = Category::Unknown; // cuBLAS's workspace, created by the first matmul and kept (its size
                                   // names it where the stack has no C++ frames: 32 MiB on Hopper)
        } else if (f.accumulate || sides.engine(f)) {
            // Made by backward: what outlives the pass (freed once the script's thread went on, as
            // zero_grad does) is a gradient; what backward frees itself was its own temporary.
            const bool outlivesPass = neverFreed || (freedBy && sides.script(*freedBy, ev.stack[freeEvent.index()])) ||
                                      scriptAllocs.anyBetween(born, gone) ||
                                      (parts && parts->at(TracePoint::after(freeEvent)) != StepPart::Backward);
            c = f.accumulate || outlivesPass ? Category::Gradient : Category::Temporary;
        } else if (neverFreed) {
            // Forward allocations that outlive every step are caches (masks, rotary tables),
            // unless the dump cut the step short.
            c = f.moduleCall && cutShort ? Category::Activation : Category::Unknown;
        } else if ((freedBy && sides.engine(*freedBy)) || (f.moduleCall && engineAllocs.anyBetween(born, gone))) {
            c = Category::Activation; // kept for backward, which freed it
        } else if (f.moduleCall) {
            c = Category::Temporary;
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
