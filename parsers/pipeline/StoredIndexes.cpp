#include "pipeline/StoredIndexes.h"

#include "cache/SideEntry.h"
#include "cache/IndexSections.h"

namespace memlens {

namespace {

// A 12 M-entry run's indexes and layouts: ~190 MB decoded, 151 MB kept (its large arrays as they are).
constexpr SideEntryKind kIndexes{".indexes", "MLINDEX\n", 1ull << 30};

// A list of lists as its lengths and their elements one after another.
template <typename Lists>
void putNested(SectionWriter &out, const Lists &lists)
{
    std::vector<uint64_t> lengths;
    std::vector<typename std::remove_cvref_t<decltype(*lists.begin())>::value_type> all;
    for (const auto &list : lists) {
        lengths.push_back(list.size());
        all.insert(all.end(), list.begin(), list.end());
    }
    out.adopt(std::move(lengths));
    out.adopt(std::move(all));
}

// Read in two steps: the arrays are sized now and filled by decompress(), then split.
// The elements go into memory untouched until their frame fills it: a count the frame's size
// allows but its bytes do not hold costs no pages.
template <typename T>
struct Nested {
    std::vector<uint64_t> lengths;
    PodArray<T> all;
    void read(SectionReader &in, uint64_t lists, uint64_t elements)
    {
        in.array(lengths, lists);
        in.array(all, elements);
    }
    // As vectors, for the layout's tree (the index's checkpoints take `all` as it is: NestedLists).
    std::vector<std::vector<T>> split() const
    {
        const std::vector<uint64_t> starts = NestedLists<T>::startsOf(lengths, all.size());
        std::vector<std::vector<T>> lists(lengths.size());
        for (size_t i = 0; i < lengths.size(); ++i)
            lists[i].assign(all.begin() + static_cast<long>(starts[i]), all.begin() + static_cast<long>(starts[i + 1]));
        return lists;
    }
};

// Field by field: its flags are bools, which no byte but 0 and 1 may become.
struct LifeRecord {
    uint64_t addr, size, stream;
    EventId created, released;
    SegmentId finalSegment;
    uint32_t flags;
};

// Parts as values or as views (DeviceIndexPartsRef): the same members.
template <typename Parts>
void putIndex(SectionWriter &out, const Parts &p)
{
    out.array(p.allocations), out.array(p.initialDetails), out.array(p.eventAllocation);
    out.array(p.activeOffsets), out.array(p.activeBlocks), out.array(p.activeWide);
    out.pod(p.initialBytes), out.pod(p.initialBlocks), out.pod(p.peakActive), out.pod(p.peak.entriesApplied());
    out.pod(p.startReserved), out.pod(p.peakReserved), out.array(p.reservedChanges);
    PodArray<LifeRecord> lives;
    for (const SegmentLife &l : p.segmentLives)
        lives.push_back({l.addr, l.size, l.stream, l.createdEvent, l.releasedEvent, l.finalSegment, uint32_t(l.expandable) | uint32_t(l.large) << 1});
    out.adopt(std::move(lives));
    out.array(p.lifeOfSegmentEvent), out.pod(p.unexplainedSegmentEntries), out.pod(p.unmatchedFinalSegments);
    out.array(p.implicitEnds), out.pod(p.preProfile), out.pod(static_cast<uint32_t>(p.pythonStacks));
    out.array(p.annotations), out.array(p.annotateEvents), out.array(p.pools);
    putNested(out, p.checkpoints);
}

template <typename Parts>
void putLayout(SectionWriter &out, const Parts &p)
{
    out.pod(p.leaves);
    putNested(out, p.tree);
    out.array(p.blockPeak), out.array(p.ghostFrees), out.pod(p.ghostTotal), out.array(p.defaultPoolGhostFrees), out.pod(p.defaultPoolGhostTotal);
}

// What is read of one device before its arrays are filled.
struct PendingDevice {
    KeptDevice kept;
    PodArray<LifeRecord> lives;
    uint32_t peak = 0, python = 0;
    Nested<AllocationId> checkpoints, tree;
};

void readDevice(SectionReader &in, PendingDevice &d, const Snapshot &snapshot, size_t n)
{
    // What a trace of n entries can hold: an allocation per entry, per final block, one more.
    const uint64_t allocations = n + snapshot.blocks.size() + 64;
    const uint64_t segments = 2 * n + snapshot.segments.size() + 64;
    DeviceIndexParts &p = d.kept.index;
    in.array(p.allocations, allocations), in.array(p.initialDetails, allocations), in.array(p.eventAllocation, n);
    in.array(p.activeOffsets, n), in.array(p.activeBlocks, n / 256 + 1), in.array(p.activeWide, n);
    p.initialBytes = in.pod<uint64_t>(), p.initialBlocks = in.pod<uint32_t>(), p.peakActive = in.pod<uint64_t>();
    d.peak = in.pod<uint32_t>();
    p.startReserved = in.pod<uint64_t>(), p.peakReserved = in.pod<uint64_t>();
    in.array(p.reservedChanges, n + 1);
    in.array(d.lives, segments);
    in.array(p.lifeOfSegmentEvent, n);
    p.unexplainedSegmentEntries = in.pod<uint64_t>(), p.unmatchedFinalSegments = in.pod<uint64_t>();
    in.array(p.implicitEnds, n);
    p.preProfile = in.pod<AllocationId>();
    d.python = in.pod<uint32_t>();
    in.array(p.annotations, n), in.array(p.annotateEvents, n), in.array(p.pools, allocations);
    // At most every allocation at every checkpoint; the elements' memory is only reserved
    // (a PodArray) until their frame fills it.
    const uint64_t checkpoints = n / DeviceIndex::kCheckpointEvery + 1;
    d.checkpoints.read(in, checkpoints, checkpoints * allocations);
    TimelineLayoutParts &l = d.kept.layout;
    l.leaves = in.pod<uint32_t>();
    const uint64_t nodes = 4 * (n / TimelineLayout::kLeafEvents + 2);
    d.tree.read(in, nodes, nodes * TimelineLayout::kPerNode);
    in.array(l.blockPeak, n / TimelineLayout::kMaxBlock + 1), in.array(l.ghostFrees, allocations);
    l.ghostTotal = in.pod<uint64_t>();
    in.array(l.defaultPoolGhostFrees, allocations);
    l.defaultPoolGhostTotal = in.pod<uint64_t>();
}

// The values that need the arrays: flags checked, lists split.
void finishDevice(PendingDevice &d)
{
    DeviceIndexParts &p = d.kept.index;
    if (d.python > 1)
        throw std::invalid_argument("a flag");
    p.pythonStacks = d.python;
    p.peak = TracePoint::afterFirst(d.peak);
    for (const LifeRecord &r : d.lives) {
        if (r.flags > 3)
            throw std::invalid_argument("a segment's flags");
        p.segmentLives.push_back({r.addr, r.size, r.stream, r.created, r.released, r.finalSegment, (r.flags & 1) != 0, (r.flags & 2) != 0});
    }
    p.checkpoints = NestedLists<AllocationId>::fromLengths(d.checkpoints.lengths, std::move(d.checkpoints.all));
    d.kept.layout.tree = d.tree.split();
}

void putDevice(SectionWriter &out, const KeptDevice &device)
{
    putIndex(out, device.index);
    putLayout(out, device.layout);
}

void putDevice(SectionWriter &out, const LiveDevice &device)
{
    putIndex(out, device.index->partsRef());
    putLayout(out, device.layout->partsRef());
}

template <typename Devices>
void putDevices(SectionWriter &out, const Devices &devices)
{
    out.pod(static_cast<uint32_t>(devices.size()));
    for (const auto &[device, parts] : devices) {
        out.pod(static_cast<int32_t>(device));
        putDevice(out, parts);
    }
}

template <typename Devices>
bool store(const SnapshotCache &cache, const CacheKey &key, const Devices &devices)
{
    // Written as it is laid out: the arrays that do not compress go from where they are, each
    // piece of them where a page of the file starts (read back, they are mapped).
    SectionWriter out(sideEntryPayloadOffset(kIndexes, key));
    putDevices(out, devices);
    return writeSideEntry(cache, kIndexes, key, [&](const std::function<bool(std::string_view)> &put) { return out.writeTo(put); });
}

} // namespace

std::string encodeIndexes(const KeptDevices &devices)
{
    SectionWriter out;
    putDevices(out, devices);
    return out.take();
}

std::string encodeIndexes(const LiveDevices &devices)
{
    SectionWriter out;
    putDevices(out, devices);
    return out.take();
}

std::optional<KeptDevices> decodeIndexes(std::string_view bytes, const Snapshot &snapshot)
{
    return decodeIndexes(MemorySectionBytes(bytes), snapshot);
}

std::optional<KeptDevices> decodeIndexes(const SectionBytes &bytes, const Snapshot &snapshot)
{
    try {
        SectionReader in(bytes);
        const auto count = in.pod<uint32_t>();
        if (count > snapshot.traces.size())
            return std::nullopt;
        std::map<int, PendingDevice> pending;
        for (uint32_t d = 0; d < count; ++d) {
            const auto device = in.pod<int32_t>();
            if (device < 0 || static_cast<size_t>(device) >= snapshot.traces.size() || pending.count(device))
                return std::nullopt;
            readDevice(in, pending[device], snapshot, snapshot.traces[static_cast<size_t>(device)].count());
        }
        if (!in.done())
            return std::nullopt;
        in.decompress();
        KeptDevices kept;
        for (auto &[device, d] : pending) {
            finishDevice(d);
            kept.emplace(device, std::move(d.kept));
        }
        return kept;
    } catch (const std::invalid_argument &) {
        return std::nullopt;
    } catch (const std::bad_alloc &) {
        return std::nullopt;
    }
}

std::optional<KeptDevices> readStoredIndexes(const SnapshotCache &cache, const CacheKey &key, const Snapshot &snapshot)
{
    const std::optional<OpenSideEntry> entry = openSideEntry(cache, kIndexes, key);
    return entry ? decodeIndexes(FileSectionBytes(entry->file.get(), entry->offset, entry->size), snapshot) : std::nullopt;
}

bool storeIndexes(const SnapshotCache &cache, const CacheKey &key, const KeptDevices &devices)
{
    return store(cache, key, devices);
}

bool storeIndexes(const SnapshotCache &cache, const CacheKey &key, const LiveDevices &devices)
{
    return store(cache, key, devices);
}

} // namespace memlens
