#pragma once
// The figures `memlens summary`, the GUI's summary page and the tests share.
#include "figures/AllocationCategories.h"
#include "index/AllocatorState.h"
#include "index/DeviceIndex.h"
#include "figures/FileHealth.h"
#include "figures/LayerFigures.h"
#include "figures/ModuleUnits.h"
#include "index/Phases.h"
#include "figures/PoolShares.h"
#include "figures/Steps.h"
#include "model/Snapshot.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct LiveBlockInfo {
    AllocationId allocation;
    uint64_t addr = 0;
    uint64_t size = 0; // requested
    uint64_t stream = 0;
    StackId stack = StackTable::kEmpty;
    EventId allocEvent; // none: alive when recording began
    bool autogradThread = false; // DeviceIndex::madeOnAutogradThread: its site says backward
    Category category = Category::Unknown;
    std::vector<std::string> labels; // from annotate entries, oldest first
    StringId userMetadata = StringTable::kEmpty; // from the alloc entry, "" when unset
    StringId compileContext = StringTable::kEmpty;
};

// Totals over the final snapshot's segments and blocks of one device.
struct FinalState {
    uint64_t segments = 0;
    uint64_t blocks = 0;
    uint64_t reserved = 0;
    uint64_t allocated = 0; // rounded sizes of active_allocated and active_pending_free blocks
    uint64_t requested = 0; // requested sizes of the same blocks
    uint64_t inactive = 0;
    uint64_t largestInactive = 0;
    double externalFragmentation = 0; // 1 − largest inactive ÷ inactive
};

// What a profiler trace states itself about the allocator (absent for snapshots).
struct TraceTotals {
    uint64_t peakAllocated = 0; // maximum of "Total Allocated"
    EventId peakIndex;
    uint64_t finalAllocated = 0;
    uint64_t finalReserved = 0;
};

struct CategorySummary {
    size_t points = 0;
    uint64_t peakTotal = 0;
    int64_t peakTimeUs = 0;
    std::array<uint64_t, CategoryTimeline::kCategories> atPeak{};
    std::array<uint64_t, CategoryTimeline::kCategories> final{};
};
CategorySummary summarizeCategories(const CategoryTimeline &timeline);

struct DeviceSummary {
    int device = 0;
    std::string name; // "cuda:0", "cpu"
    uint64_t entries = 0;
    std::array<uint64_t, kActionCount> actions{};
    std::vector<std::pair<std::string, uint64_t>> otherActions; // unknown action names
    uint64_t initialBytes = 0;
    uint64_t initialBlocks = 0;
    uint64_t peakActiveBytes = 0;
    std::optional<EventId> peakIndex;
    std::optional<int64_t> peakTimeUs;
    uint64_t liveBlocksAtPeak = 0;
    std::vector<LiveBlockInfo> topLiveAtPeak;
    uint64_t peakReservedBytes = 0;
    uint64_t startReservedBytes = 0;
    FinalState final;
    std::vector<PoolShare> poolsAtEnd; // the final segments by pool, the default pool first
    std::vector<OomDiagnosis> ooms;
    std::vector<PhaseRange> phases;
    // The part of the step each entry is in (from `phases`): the steps, the layers and the advice
    // read it. Shared, never written after the summary is made.
    std::shared_ptr<const StepParts> parts;
    std::string peakPhase; // the innermost phase at the peak ("" when none)
    std::vector<StepSummary> steps;
    StepSource stepsFrom = StepSource::None; // the evidence the steps came from (None: no steps)
    std::string whyNoSteps;                  // "" when there are steps
    std::vector<LeakSuspect> leakSuspects;
    std::string whyNoLeakSuspects; // "" when there are suspects
    std::optional<TraceTotals> traceTotals;
    std::array<uint64_t, kCategoryCount> categoryBytesAtPeak{};
    // Of those, the blocks from before the trace: no entry made them, their frames in the final
    // snapshot named them (what made a KV cache, an optimizer's state, a module's parameters).
    std::array<uint64_t, kCategoryCount> categoryBytesFromBeforeTrace{};
    // The units the run executes its model in (FSDP units, module paths), when its marks name
    // them: null otherwise. Shared, never written after the summary is made.
    std::shared_ptr<const ModuleUnits> units;
    std::vector<UnitBytes> unitsAtPeak;
    // Each layer's forward (a model's layer loop, from the stacks); none when no loop is seen.
    std::optional<LayersSummary> layers;
    TraceCoverage coverage;
    std::vector<FileWarning> warnings;
};

// The caching allocator at one event, as the segments view states it (AllocatorState): segments
// as MemoryViz counts them, allocated = rounded block sizes, free = reserved - allocated.
struct AllocatorFigures {
    uint64_t segments = 0;
    uint64_t reserved = 0;
    uint64_t allocated = 0;
    uint64_t requested = 0;
    uint64_t free = 0;
    uint64_t largestFree = 0;
};

struct PointSummary {
    std::optional<EventId> index;
    std::optional<int64_t> timeUs;
    uint64_t activeBytes = 0;
    uint64_t reservedBytes = 0;
    uint64_t liveBlocks = 0;
    std::vector<LiveBlockInfo> topLive;
    AllocatorFigures allocator;
    std::vector<PoolShare> pools; // the allocator's segments there by pool
    std::vector<UnitBytes> units; // live bytes by the unit that made them, with units
};

// What the index says at once (entries, peak, reserved, the final state, the OOMs with their
// diagnosis): the timeline's first frame needs no more (its phases wait for the steps, which
// draw them as a strip: 20,000 phases drawn one by one made the first frame 0.8 s slower).
// summarizeDevice adds the rest.
DeviceSummary summarizeBasics(const Snapshot &snapshot, const DeviceIndex &index);

FinalState finalState(const Snapshot &snapshot, int device);
// One allocation's row, labels and metadata included (`categories` may be null: unknown).
LiveBlockInfo liveBlockInfo(const DeviceIndex &index, AllocationId id, const AllocationCategories *categories);
// Largest allocations alive at t, largest first (ties: lower address first).
std::vector<LiveBlockInfo> largestLive(const DeviceIndex &index, TracePoint t, size_t k, uint64_t *liveCount = nullptr,
                                       const AllocationCategories *categories = nullptr);
// `categories` may be given when the caller keeps them anyway; otherwise they are built here, on
// another core while this one makes the rest of the summary, and handed to `made` when given.
DeviceSummary summarizeDevice(const Snapshot &snapshot, const DeviceIndex &index, size_t topK,
                              const AllocationCategories *categories = nullptr,
                              std::unique_ptr<const AllocationCategories> *made = nullptr);
// The same from `basics` made earlier (summarizeBasics: the window's first frame), not made again.
DeviceSummary completeSummary(const Snapshot &snapshot, const DeviceIndex &index, std::optional<DeviceSummary> basics, size_t topK,
                              const AllocationCategories *categories = nullptr,
                              std::unique_ptr<const AllocationCategories> *made = nullptr);
// `categories`: the device's, for the live blocks' categories ("unknown" without them).
PointSummary summarizePoint(const Snapshot &snapshot, const DeviceIndex &index, TracePoint t, size_t topK,
                            const AllocationCategories *categories = nullptr, const ModuleUnits *units = nullptr);

} // namespace memlens
