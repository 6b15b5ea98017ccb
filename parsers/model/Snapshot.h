#pragma once
// The decoded content of a memory snapshot: immutable after loading. Indices built on top of
// it (lifetimes, running totals, live sets) live in DeviceIndex.
#include "model/FileKinds.h"
#include "model/Ids.h"
#include "model/InternTables.h"
#include "model/NarrowColumn.h"
#include "model/PodArray.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memlens {

enum class Action : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Annotate, // labels the live allocation at addr with the entry's user_metadata (torch 2026)
    Other, // an action this version does not know; its name is kept in EventTable::otherNames
};
constexpr int kActionCount = 11;
std::string_view actionName(Action action);
Action actionFromName(std::string_view name);
// Entries about reserved memory (the rest are about allocations, or markers).
constexpr bool isSegmentAction(Action a)
{
    return a == Action::SegmentAlloc || a == Action::SegmentFree || a == Action::SegmentMap || a == Action::SegmentUnmap;
}

// No GPU or host has a petabyte: a size beyond this is a damaged file, read as 0 and reported.
constexpr uint64_t kMaxPlausibleBytes = 1ull << 50;

// A column with few non-default values: (entry index, value) in entry order.
template <typename V>
using SparseColumn = std::vector<std::pair<uint32_t, V>>;

// The first pair of a sparse column at `entry` or after it.
template <typename V>
typename SparseColumn<V>::const_iterator sparseFrom(const SparseColumn<V> &column, uint32_t entry)
{
    return std::lower_bound(column.begin(), column.end(), entry, [](const auto &pair, uint32_t e) { return pair.first < e; });
}

// One device's trace entries, oldest first, as a struct of arrays. The columns are indexed by
// position (the decoders, the cache and stitching move rows); lookups take an EventId.
struct EventTable {
    PodArray<Action> action;
    PodArray<uint64_t> addr; // for `oom` entries: device_free
    NarrowColumn<uint64_t> size;
    PodArray<StreamIndex> stream;
    NarrowColumn<int64_t> timeUs; // 0 when the file has no times
    PodArray<StackId> stack;
    // Sparse columns: (event index, value), only where the value is not the default.
    SparseColumn<StringId> otherNames;
    SparseColumn<StringId> compileContext;
    SparseColumn<StringId> userMetadata;
    SparseColumn<StringId> internalMetadata; // e.g. "mallocWithAddress"
    SparseColumn<StringId> forwardFrames;    // anomaly mode's forward traceback, joined
    SparseColumn<PoolIndex> pool;            // where not (0,0)
    // Entries whose size was beyond kMaxPlausibleBytes, read as 0: the size as written (text).
    SparseColumn<StringId> implausibleSizes;
    // Profiler traces only: the allocator's own totals after each event ("Total Allocated",
    // rounded block sizes, and "Total Reserved").
    PodArray<uint64_t> allocatedAfter;
    PodArray<uint64_t> reservedAfter;

    size_t count() const { return action.size(); }
    bool operator==(const EventTable &) const = default;
    // The value a sparse column holds for `event`, id 0 ("", the default pool) when none.
    template <typename V>
    static V sparseValueAt(const SparseColumn<V> &column, EventId event)
    {
        const auto it = sparseFrom(column, event.index());
        return it != column.end() && it->first == event.index() ? it->second : V(0);
    }
    PoolIndex poolOf(EventId event) const { return sparseValueAt(pool, event); }
};

enum class BlockState : uint8_t { ActiveAllocated, ActivePendingFree, Inactive, Unknown };
std::string_view blockStateName(BlockState state);

struct Block {
    uint64_t address = 0;
    uint64_t size = 0;          // rounded size the allocator handed out
    uint64_t requestedSize = 0; // what the user asked for
    BlockState state = BlockState::Unknown;
    StackId stack = StackTable::kEmpty;
    // In use, or freed by the program but awaiting its free on another stream: held, as torch
    // counts it until free_completed (and its segment's active_size with it).
    bool held() const { return state == BlockState::ActiveAllocated || state == BlockState::ActivePendingFree; }
    bool operator==(const Block &) const = default;
};

struct Segment {
    int device = 0;
    uint64_t address = 0;
    uint64_t totalSize = 0;
    uint64_t allocatedSize = 0;
    uint64_t activeSize = 0;
    uint64_t requestedSize = 0;
    uint64_t stream = 0;
    bool large = true;
    bool expandable = false;
    std::pair<int64_t, int64_t> pool{0, 0};
    StackId stack = StackTable::kEmpty;
    uint32_t firstBlock = 0; // into Snapshot::blocks
    uint32_t blockCount = 0;
    bool operator==(const Segment &) const = default;
};

// Which part of a training step a phase (a record_function range) is, by its name: the one rule
// for the allocation categories and for the phases a profiler trace's decoder infers around
// optimizer steps. "Phase" means the named range; this is what it is part of.
enum class StepPart : uint8_t { None, Forward, Backward, Optimizer };
StepPart stepPartOfName(std::string_view name);

// One START or END of a record_function phase (torch's `external_annotations`).
struct PhaseMark {
    int device = 0;
    StringId name = StringTable::kEmpty;
    bool start = true;
    int64_t timeUs = 0;
    bool operator==(const PhaseMark &) const = default;
};

// A stretch of time a stitched run has no entries for: the entries between two dumps that the
// ring buffer dropped (a single file has none).
struct TraceGap {
    int device = 0;
    int64_t fromUs = 0; // the last entry before the gap
    int64_t toUs = 0;   // the first entry after it
    bool operator==(const TraceGap &) const = default;
};

// Where a stitched run's dump ended, and the training iteration its path names (the steps done
// when it was written): the anchor that numbers the run's steps as the job counted them.
struct DumpEnd {
    int64_t timeUs = 0; // the dump's last entry
    int64_t iteration = 0;
    bool operator==(const DumpEnd &) const = default;
};

// Profiler traces recorded with record_shapes: the dtype of the first input of each matrix
// product and convolution (`Input type`). Autocast records a product twice: as called, on fp32
// inputs, and inside it, after its casts, on 16-bit ones; a model cast to 16 bits calls them on
// 16-bit inputs.
struct OperatorDtypes {
    uint64_t fp32 = 0; // outermost products (no product open around them) on float inputs
    uint64_t bf16 = 0; // … on c10::BFloat16
    uint64_t fp16 = 0; // … on c10::Half
    uint64_t cast = 0; // fp32 products with a 16-bit product inside
    uint64_t total() const { return fp32 + bf16 + fp16; }
    bool operator==(const OperatorDtypes &) const = default;
};

// What the file held and how it was stored, for display and `summary --json`.
struct FileFacts {
    FileFormat format = FileFormat::Pickle;
    Compression compression = Compression::None;
    int pickleProtocol = 0;  // 0 when not a pickle
    bool hasTimes = false;
    bool hasFrames = false;
    bool hasCompileContext = false;
    bool hasUserMetadata = false;
    bool hasPhases = false;
    bool hasAllocatorSettings = false;
    bool legacyBlockHistory = false; // ≤ 2.0: block stacks under history[0]
    bool legacySegmentList = false;  // a bare list of segments (torch ≤ 1.13, or a 2026 MemPool / include_traces=False snapshot)
    int cpuDevice = -1;               // profiler traces: the device index that holds CPU memory
    int hostDevice = -1;              // the device index given to pinned host memory (host_segments/host_traces)
    bool hasPoolIds = false;          // trace entries name their mempool (pool_id, torch 2026)
    bool hasFxFrames = false;
    // Profiler traces from torch ≤ 1.9: `[memory]` events without `Addr`. Blocks cannot be told
    // apart; each free is paired with the latest open allocation of its size, which keeps every
    // total exact (the running sum of `Bytes`) but not which block lived how long.
    bool noAddresses = false;
    // Profiler traces: `[memory]` events left out for lacking Bytes or a Device Type.
    uint64_t malformedMemoryEvents = 0;
    OperatorDtypes operatorDtypes;
    bool operator==(const FileFacts &) const = default;
};

// What torch's FX augmentation adds to a frame in generated code (string ids, 0 when absent).
struct FxFrame {
    StringId op = StringTable::kEmpty;
    StringId node = StringTable::kEmpty;
    StringId target = StringTable::kEmpty;
    StringId originalTrace = StringTable::kEmpty; // the model's own traceback, several lines
    bool operator==(const FxFrame &) const = default;
};

// `export_memory_timeline` output: bytes live per category over time.
struct CategoryTimeline {
    static constexpr int kCategories = 8;
    // torch's own category names (export_memory_timeline), not memlens's Category.
    static const char *torchCategoryName(int c); // parameter, optimizer_state, input, temporary, …
    std::vector<int64_t> timeUs;
    std::vector<std::array<uint64_t, kCategories>> bytes; // per time point
    bool operator==(const CategoryTimeline &) const = default;
};

struct Snapshot {
    FileFacts facts;
    StringTable strings;
    FrameTable frames;
    StackTable stacks;
    std::vector<uint64_t> streams;  // stream values, referenced by EventTable::stream
    std::vector<EventTable> traces; // indexed by device
    std::vector<Segment> segments;  // all devices, in file order
    std::vector<Block> blocks;
    std::vector<std::pair<std::string, std::string>> allocatorSettings; // flattened, values as text
    std::vector<PhaseMark> phaseMarks;
    std::optional<CategoryTimeline> categories; // memory-timeline files
    std::vector<std::pair<int64_t, int64_t>> pools{{0, 0}}; // mempool ids; index 0 is the default pool
    std::vector<std::pair<FrameId, FxFrame>> fxFrames;      // by frame id, ascending
    // Segments whose size or a block's was beyond kMaxPlausibleBytes (read as 0), ascending.
    std::vector<SegmentId> implausibleSegments;
    std::vector<TraceGap> gaps; // by device, then time
    std::vector<DumpEnd> dumpEnds; // stitched runs whose dumps name their iteration; by time

    const FxFrame *fxFrame(FrameId frameId) const;
    // The stream's value (0 for an index the table lacks).
    uint64_t streamValue(StreamIndex stream) const { return stream.index() < streams.size() ? streams[stream.index()] : 0; }
    // The index of a mempool id in `pools`; 0, the default pool, when it is not a pool the file
    // names (every reader wants "private or not", so an unknown id is not private).
    PoolIndex poolIndex(const std::pair<int64_t, int64_t> &id) const;
    const std::pair<int64_t, int64_t> &poolId(PoolIndex index) const { return pools[index.index()]; }

    std::string deviceName(int device) const; // "cuda:0", "cpu" for a trace's CPU memory, "host" for pinned memory

    // Devices that have segments or trace entries, ascending.
    std::vector<int> devices() const;
    std::string frameText(FrameId frameId) const; // "file:line:name", file without directories
    // Every field: what a copy (the cache's) must keep.
    bool operator==(const Snapshot &) const = default;
};

} // namespace memlens
