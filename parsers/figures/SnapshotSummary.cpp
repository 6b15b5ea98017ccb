#include "figures/SnapshotSummary.h"

#include "figures/ModelLayers.h"
#include "figures/StepParts.h"
#include "index/AllocatorState.h"

#include <algorithm>
#include <charconv>
#include <future>
#include <map>
#include <memory>
#include <stdexcept>

namespace memlens {

FinalState finalState(const Snapshot &snapshot, int device)
{
    FinalState s;
    for (const Segment &seg : snapshot.segments) {
        if (seg.device != device)
            continue;
        ++s.segments;
        s.reserved += seg.totalSize;
        for (uint32_t b = seg.firstBlock; b < seg.firstBlock + seg.blockCount; ++b) {
            const Block &block = snapshot.blocks[b];
            ++s.blocks;
            if (block.held()) { // the allocator at the end counts it alike
                s.allocated += block.size;
                s.requested += block.requestedSize;
            } else if (block.state == BlockState::Inactive) {
                s.inactive += block.size;
                s.largestInactive = std::max(s.largestInactive, block.size);
            }
        }
    }
    s.externalFragmentation =
        s.inactive == 0 ? 0.0 : 1.0 - static_cast<double>(s.largestInactive) / static_cast<double>(s.inactive);
    return s;
}

namespace {

LiveBlockInfo rowOf(const DeviceIndex &index, AllocationId id, const AllocationCategories *categories)
{
    const AllocationDetail d = index.detail(id);
    return {id, d.addr, d.size, d.stream, d.stack, index.allocation(id).allocEvent, index.madeOnAutogradThread(id),
            categories ? categories->of(id) : Category::Unknown, {}, StringTable::kEmpty, StringTable::kEmpty};
}

void addLabels(const DeviceIndex &index, LiveBlockInfo &info)
{
    info.labels = index.labelsOf(info.allocation);
    info.userMetadata = index.userMetadataOf(info.allocation);
    info.compileContext = index.compileContextOf(info.allocation);
}

} // namespace

std::vector<LiveBlockInfo> largestLive(const DeviceIndex &index, TracePoint t, size_t k, uint64_t *liveCount,
                                       const AllocationCategories *categories)
{
    std::vector<AllocationId> live = index.liveAt(t);
    if (liveCount)
        *liveCount = live.size();
    std::vector<LiveBlockInfo> infos;
    infos.reserve(live.size());
    for (AllocationId id : live)
        infos.push_back(rowOf(index, id, categories)); // labels and metadata below, for the rows kept
    auto larger = [](const LiveBlockInfo &a, const LiveBlockInfo &b) {
        return a.size != b.size ? a.size > b.size : a.addr < b.addr;
    };
    if (infos.size() > k) {
        std::partial_sort(infos.begin(), infos.begin() + static_cast<long>(k), infos.end(), larger);
        infos.resize(k);
    } else {
        std::sort(infos.begin(), infos.end(), larger);
    }
    for (LiveBlockInfo &info : infos)
        addLabels(index, info);
    return infos;
}

LiveBlockInfo liveBlockInfo(const DeviceIndex &index, AllocationId id, const AllocationCategories *categories)
{
    LiveBlockInfo info = rowOf(index, id, categories);
    addLabels(index, info);
    return info;
}

DeviceSummary summarizeBasics(const Snapshot &snapshot, const DeviceIndex &index)
{
    DeviceSummary s;
    s.device = index.device();
    const EventTable &ev = index.events();
    s.entries = ev.count();
    s.actions = index.actionCounts();
    std::map<std::string, uint64_t> others;
    for (const auto &[row, name] : ev.otherNames)
        ++others[std::string(snapshot.strings.at(name))];
    s.otherActions.assign(others.begin(), others.end());
    s.initialBytes = index.initialBytes();
    s.initialBlocks = index.initialBlocks();
    s.peakActiveBytes = index.peakActiveBytes();
    if (const TracePoint peak = index.peak(); !peak.isStart()) {
        s.peakIndex = peak.lastEntry();
        if (snapshot.facts.hasTimes)
            s.peakTimeUs = ev.timeUs[peak.lastEntry().index()];
    }
    s.name = snapshot.deviceName(s.device);
    s.peakReservedBytes = index.peakReservedBytes();
    s.startReservedBytes = index.startReservedBytes();
    s.final = finalState(snapshot, s.device);
    s.poolsAtEnd = poolSharesAtEnd(snapshot, index);
    for (EventId e : index.oomEvents()) {
        s.ooms.push_back(diagnoseOom(index, e, allocatorStateAt(snapshot, index, TracePoint::after(e))));
    }
    return s;
}

namespace {
// Everything but the figures that need the categories, on top of the basics.
DeviceSummary summarizeDeviceWithoutCategories(const Snapshot &snapshot, const DeviceIndex &index, DeviceSummary s)
{
    const EventTable &ev = index.events();
    s.phases = phaseRanges(snapshot, s.device);
    if (s.peakTimeUs)
        if (const PhaseRange *p = innermostPhaseAt(s.phases, *s.peakTimeUs))
            s.peakPhase = p->name;
    if (auto units = std::make_shared<const ModuleUnits>(index, s.phases); !units->empty()) {
        s.unitsAtPeak = units->bytesAt(index, index.peak());
        s.units = std::move(units);
    }
    s.parts = std::make_shared<const StepParts>(snapshot, index, s.phases);
    s.layers = summarizeLayers(index, *s.parts, ModelLayers(snapshot, index, *s.parts, s.units.get()));
    FileHealth health = fileHealth(snapshot, index);
    s.coverage = std::move(health.coverage);
    s.warnings = std::move(health.warnings);
    StepFinding found = findSteps(snapshot, index, s.phases, *s.parts, s.coverage.truncated);
    s.leakSuspects = findLeakSuspects(index, found.steps);
    s.whyNoLeakSuspects = whyNoLeakSuspects(found, s.leakSuspects.size());
    s.stepsFrom = found.steps.empty() ? StepSource::None : found.source;
    s.whyNoSteps = whyNoSteps(found);
    s.steps = std::move(found.steps);
    if (!ev.allocatedAfter.empty()) {
        TraceTotals t;
        for (uint32_t i = 0; i < ev.count(); ++i) {
            if (ev.allocatedAfter[i] > t.peakAllocated) {
                t.peakAllocated = ev.allocatedAfter[i];
                t.peakIndex = EventId(i);
            }
        }
        t.finalAllocated = ev.allocatedAfter[ev.count() - 1];
        t.finalReserved = ev.reservedAfter[ev.count() - 1];
        s.traceTotals = t;
    }
    return s;
}

void addCategoryFigures(DeviceSummary &s, const DeviceIndex &index, size_t topK, const AllocationCategories &categories)
{
    const TracePoint peak = index.peak();
    s.topLiveAtPeak = largestLive(index, peak, topK, &s.liveBlocksAtPeak, &categories);
    s.categoryBytesAtPeak = categories.bytesAt(index, peak);
    for (AllocationId id : index.liveAt(peak)) {
        if (index.allocation(id).fromBeforeTrace())
            s.categoryBytesFromBeforeTrace[static_cast<size_t>(categories.of(id))] += index.requestedBytes(id);
    }
}
} // namespace

DeviceSummary summarizeDevice(const Snapshot &snapshot, const DeviceIndex &index, size_t topK,
                              const AllocationCategories *categories, std::unique_ptr<const AllocationCategories> *made)
{
    return completeSummary(snapshot, index, std::nullopt, topK, categories, made);
}

DeviceSummary completeSummary(const Snapshot &snapshot, const DeviceIndex &index, std::optional<DeviceSummary> basics, size_t topK,
                              const AllocationCategories *categories, std::unique_ptr<const AllocationCategories> *made)
{
    // Without categories given, they are worked out on the other core while this one does what
    // does not need them (steps, leaks, file health); both only read the snapshot and the index.
    std::future<std::unique_ptr<const AllocationCategories>> pending;
    if (!categories)
        pending = std::async(std::launch::async, [&] { return std::make_unique<const AllocationCategories>(snapshot, index); });
    DeviceSummary s = summarizeDeviceWithoutCategories(snapshot, index, basics ? std::move(*basics) : summarizeBasics(snapshot, index));
    std::unique_ptr<const AllocationCategories> own;
    if (pending.valid()) {
        own = pending.get();
        categories = own.get();
    }
    addCategoryFigures(s, index, topK, *categories);
    if (made && own)
        *made = std::move(own);
    return s;
}

CategorySummary summarizeCategories(const CategoryTimeline &timeline)
{
    CategorySummary s;
    s.points = timeline.timeUs.size();
    for (size_t i = 0; i < timeline.bytes.size(); ++i) {
        uint64_t total = 0;
        for (uint64_t b : timeline.bytes[i])
            total += b;
        if (total > s.peakTotal || i == 0) {
            s.peakTotal = total;
            s.peakTimeUs = timeline.timeUs[i];
            s.atPeak = timeline.bytes[i];
        }
    }
    if (!timeline.bytes.empty())
        s.final = timeline.bytes.back();
    return s;
}

PointSummary summarizePoint(const Snapshot &snapshot, const DeviceIndex &index, TracePoint t, size_t topK, const AllocationCategories *categories,
                            const ModuleUnits *units)
{
    PointSummary p;
    if (!t.isStart()) {
        p.index = t.lastEntry();
        p.timeUs = index.events().timeUs[t.lastEntry().index()];
    }
    p.activeBytes = index.activeAt(t);
    p.reservedBytes = index.reservedAt(t);
    p.topLive = largestLive(index, t, topK, &p.liveBlocks, categories);
    const AllocatorState state = allocatorStateAt(snapshot, index, t);
    p.allocator = {state.segments.size(), state.reserved, state.allocated, state.requested, state.free, state.largestFree};
    p.pools = poolSharesAt(snapshot, index, state);
    if (units)
        p.units = units->bytesAt(index, t);
    return p;
}

} // namespace memlens
