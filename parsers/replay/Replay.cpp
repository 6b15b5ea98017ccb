#include "replay/Replay.h"

#include "index/AllocatorState.h"
#include "model/ByteFormat.h"
#include "replay/CachingAllocatorModel.h"

#include <algorithm>

namespace memlens {

namespace {

bool releasesSegment(Action a)
{
    return a == Action::SegmentFree || a == Action::SegmentUnmap;
}

// A run of segment releases is torch.cuda.empty_cache() unless the allocator made it itself to
// retry a request that did not fit under the limit: then the OOM follows, or a new segment that
// would not have fit beside what was reserved before the run. Without a limit nothing is retried.
bool startsEmptyCache(const DeviceIndex &index, uint32_t e, std::optional<uint64_t> capacity)
{
    const EventTable &ev = index.events();
    if (e > 0 && releasesSegment(ev.action[e - 1]))
        return false;
    uint32_t next = e;
    while (next < ev.count() && releasesSegment(ev.action[next]))
        ++next;
    if (next == ev.count())
        return true;
    const Action a = ev.action[next];
    if (a == Action::Oom)
        return false;
    if (a != Action::SegmentAlloc && a != Action::SegmentMap)
        return true;
    const uint64_t before = index.reservedAt(TracePoint::before(EventId(e)));
    return !capacity || before + ev.size[next] <= *capacity;
}

uint64_t streamOf(const Snapshot &snapshot, const EventTable &ev, uint32_t e)
{
    return snapshot.streamValue(ev.stream[e]);
}

ReplayRun recordedRun(const DeviceIndex &index)
{
    const EventTable &ev = index.events();
    ReplayRun run;
    run.peakReservedBytes = index.startReservedBytes();
    for (const auto &[event, reserved] : index.reservedChanges()) {
        if (reserved > run.peakReservedBytes) {
            run.peakReservedBytes = reserved;
            run.peakIndex = event;
        }
    }
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (ev.action[e] == Action::SegmentAlloc || ev.action[e] == Action::SegmentMap)
            run.segmentAllocs.push_back(ev.size[e]);
        else if (ev.action[e] == Action::Oom && !run.oomAt)
            run.oomAt = EventId(e);
    }
    run.reservedAtEndBytes = index.reservedAt(index.end());
    return run;
}

// The segments and blocks live at the first entry, for a trace that began after memory was
// reserved. Returns each seeded allocation's block.
void seedFromFirstEntry(const DeviceIndex &index, const AllocatorConfig &config, CachingAllocatorModel &model,
                        std::vector<uint32_t> &blockOf, std::vector<std::string> &notes)
{
    std::vector<SegmentLifeId> lives;
    for (uint32_t i = 0; i < index.segmentLives().size(); ++i) {
        if (index.segmentLives()[i].fromBeforeTrace())
            lives.push_back(SegmentLifeId(i));
    }
    std::sort(lives.begin(), lives.end(), [&](SegmentLifeId a, SegmentLifeId b) { return index.segmentLife(a).addr < index.segmentLife(b).addr; });
    std::vector<std::vector<std::pair<uint64_t, AllocationId>>> blocksIn(lives.size()); // (addr, allocation)
    size_t outside = 0;
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const AllocationId id(i);
        if (!index.allocation(id).fromBeforeTrace() || id == index.preProfileAllocation())
            continue;
        const uint64_t addr = index.detail(id).addr;
        auto it = std::upper_bound(lives.begin(), lives.end(), addr,
                                   [&](uint64_t a, SegmentLifeId life) { return a < index.segmentLife(life).addr; });
        const SegmentLife *life = it == lives.begin() ? nullptr : &index.segmentLife(*std::prev(it));
        if (!life || addr >= life->addr + life->size) {
            ++outside;
            continue;
        }
        blocksIn[size_t(std::prev(it) - lives.begin())].emplace_back(addr, id);
    }
    for (size_t k = 0; k < lives.size(); ++k) {
        const SegmentLife &life = index.segmentLife(lives[k]);
        CachingAllocatorModel::SeedSegment seg;
        seg.addr = life.addr;
        seg.size = life.size;
        seg.stream = life.stream;
        seg.pool = index.segmentPoolOf(lives[k]).index(); // the model numbers pools as the snapshot does
        seg.small = !life.large;
        std::sort(blocksIn[k].begin(), blocksIn[k].end());
        for (const auto &[addr, id] : blocksIn[k])
            seg.liveBlocks.emplace_back(addr, CachingAllocatorModel::roundSize(index.requestedBytes(id), config));
        const std::vector<uint32_t> ids = model.seed(seg);
        for (size_t b = 0; b < ids.size(); ++b)
            blockOf[blocksIn[k][b].second.index()] = ids[b];
    }
    if (outside > 0)
        notes.push_back(std::to_string(outside) + " blocks live at the first entry lie outside every segment reserved then; left out");
}

// A new cudaMalloc'd segment gets the address the recorded run's matching segment got, so best
// fit breaks ties between equal free blocks as it did.
class RecordedPlacement {
public:
    explicit RecordedPlacement(const EventTable &ev)
    {
        for (uint32_t e = 0; e < ev.count(); ++e) {
            if (ev.action[e] == Action::SegmentAlloc)
                segments_.emplace_back(ev.addr[e], ev.size[e]);
        }
    }
    uint64_t operator()(uint64_t size)
    {
        if (next_ < segments_.size() && segments_[next_].second == size)
            return segments_[next_++].first;
        return 0;
    }

private:
    std::vector<std::pair<uint64_t, uint64_t>> segments_; // (addr, size)
    size_t next_ = 0;
};

} // namespace

CapacityGuess capacityFromOom(const DeviceIndex &index)
{
    const std::vector<EventId> ooms = index.oomEvents();
    if (ooms.empty())
        return {};
    const EventId e = ooms.front();
    const uint64_t deviceFree = index.events().addr[e.index()]; // an OOM entry's device_free
    const uint64_t request = index.events().size[e.index()];
    const uint64_t reserved = index.reservedAt(TracePoint::after(e));
    if (stoppedByProcessLimit(deviceFree, request)) {
        uint64_t peak = index.startReservedBytes();
        for (const auto &[event, bytes] : index.reservedChanges()) {
            if (event > e)
                break;
            peak = std::max(peak, bytes);
        }
        return {peak, "at least " + formatBytes(peak) + ", the reserved peak before the OOM at event " + std::to_string(e.index()) + ": the device still had " +
                          formatBytes(deviceFree) + " free, so " + std::string(kProcessLimitFinding)};
    }
    return {reserved + deviceFree, "the OOM entry at event " + std::to_string(e.index()) + ": reserved " + formatBytes(reserved) + " plus " +
                                       formatBytes(deviceFree) + " the device reported free"};
}

namespace {

// The capacity the replay runs against: given, a share of the device (per_process_memory_fraction),
// or the OOM entry's; unlimited without any.
void chooseCapacity(ReplayResult &result, const DeviceIndex &index, const ReplayOptions &options)
{
    result.capacity = options.capacity ? CapacityGuess{options.capacity, options.capacitySource} : capacityFromOom(index);
    if (options.config.perProcessMemoryFraction) {
        if (const auto limited = options.deviceTotal ? options.config.fractionCapacity(*options.deviceTotal) : std::nullopt) {
            result.capacity = {limited, "per_process_memory_fraction " + options.config.fractionText() + " of " +
                                            formatBytes(*options.deviceTotal) +
                                            (options.capacitySource.empty() ? std::string() : " (" + options.capacitySource + ")")};
        } else {
            result.notes.push_back("per_process_memory_fraction needs the device's total memory (--gpu) to limit the replay; not applied");
        }
    }
}

} // namespace

ReplayResult replayTrace(const Snapshot &snapshot, const DeviceIndex &index, const ReplayOptions &options, const std::atomic<bool> *cancel)
{
    const EventTable &ev = index.events();
    ReplayResult result;
    result.device = index.device();
    result.config = options.config;
    chooseCapacity(result, index, options);
    result.recorded = recordedRun(index);
    if (!result.capacity.bytes)
        result.capacity.how = "unlimited: no --capacity and no OOM entry";
    RecordedPlacement placement(ev);
    CachingAllocatorModel model(options.config, result.capacity.bytes, [&placement](uint64_t size) { return placement(size); });

    std::vector<uint32_t> blockOf(index.allocationCount(), CachingAllocatorModel::kNone);
    const bool seeded = index.startReservedBytes() > 0 || index.initialBlocks() > 0;
    if (seeded) {
        result.fromFirstEntry = true;
        seedFromFirstEntry(index, options.config, model, blockOf, result.notes);
        result.notes.push_back("the trace begins after " + formatBytes(index.startReservedBytes()) +
                               " was reserved: the replay starts from the segments and blocks live at its first entry, as cudaMalloc'd segments");
    }
    result.startReservedBytes = model.reservedBytes();
    PredictedSegmentRecorder segments;
    for (const SegmentLife &life : index.segmentLives())
        if (seeded && life.fromBeforeTrace())
            segments.seed(life.addr, life.size);

    ReplayRun &run = result.predicted;
    run.peakReservedBytes = model.reservedBytes();
    uint64_t last = model.reservedBytes();
    auto freeAllocation = [&](AllocationId id) {
        if (id.index() < blockOf.size() && blockOf[id.index()] != CachingAllocatorModel::kNone) {
            model.free(blockOf[id.index()]);
            blockOf[id.index()] = CachingAllocatorModel::kNone;
        }
    };
    bool failedRequestFits = false;
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (cancel && (e & 0xffff) == 0 && cancel->load(std::memory_order_relaxed))
            throw ReplayCancelled{};
        const Action a = ev.action[e];
        const EventId event(e);
        if (a == Action::Alloc) {
            for (const auto &[at, ended] : index.endedBy(event))
                freeAllocation(ended);
            const AllocationId id = index.allocationOfEvent(event);
            const bool known = id.index() < blockOf.size();
            const uint32_t block = model.malloc(ev.size[e], streamOf(snapshot, ev, e), known ? index.poolOf(id).index() : 0);
            if (block == CachingAllocatorModel::kNone) {
                run.oomAt = event;
            } else if (known) {
                blockOf[id.index()] = block;
            }
        } else if (a == Action::FreeCompleted) {
            freeAllocation(index.allocationOfEvent(event));
        } else if (releasesSegment(a)) {
            if (startsEmptyCache(index, e, result.capacity.bytes))
                model.emptyCache();
        } else if (a == Action::Oom) {
            // The request that failed: under this setting, does it fit here? If so it is counted
            // at this point and released, since what the program did next is not recorded.
            const uint32_t block = model.malloc(ev.size[e], streamOf(snapshot, ev, e), 0);
            if (block == CachingAllocatorModel::kNone) {
                run.oomAt = event;
            } else {
                const uint64_t here = model.reservedBytes();
                if (here > run.peakReservedBytes) {
                    run.peakReservedBytes = here;
                    run.peakIndex = event;
                }
                model.free(block);
                failedRequestFits = true;
            }
        }
        for (const SegmentChange &c : model.takeSegmentChanges()) {
            if (c.kind == SegmentChange::Alloc || c.kind == SegmentChange::Map)
                run.segmentAllocs.push_back(c.size);
            segments.apply(c, event);
        }
        const uint64_t now = model.reservedBytes();
        if (now != last) {
            result.predictedReserved.emplace_back(event, now);
            last = now;
        }
        if (now > run.peakReservedBytes) {
            run.peakReservedBytes = now;
            run.peakIndex = event;
        }
        if (run.oomAt)
            break; // the program would have stopped here
    }
    run.reservedAtEndBytes = model.reservedBytes();
    result.predictedSegments = segments.take();
    if (failedRequestFits)
        result.notes.push_back("the request that failed at the recorded OOM fits under this setting; what the program did after it is not in the trace");
    return result;
}

} // namespace memlens
