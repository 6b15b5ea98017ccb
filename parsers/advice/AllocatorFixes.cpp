#include "advice/AllocatorFixes.h"

#include "model/ByteFormat.h"
#include "replay/CachingAllocatorModel.h"
#include "replay/Replay.h"
#include "replay/ReplayAdmission.h"

namespace memlens {

uint64_t recordedNeed(const Snapshot &snapshot, const DeviceIndex &index, TracePoint at, bool oom)
{
    if (!oom)
        return index.peakReservedBytes();
    const uint64_t request = CachingAllocatorModel::roundSize(index.events().size[at.lastEntry().index()], AllocatorConfig::recorded(snapshot));
    return index.reservedAt(at) + CachingAllocatorModel::allocationSize(request);
}

std::vector<Fix> allocatorFixes(const Snapshot &snapshot, const DeviceIndex &index, uint64_t needed, bool oom, std::optional<uint64_t> capacity)
{
    const AllocatorConfig recorded = AllocatorConfig::recorded(snapshot);
    if (whyNotReplayable(snapshot, index.device()))
        return {};

    struct Candidate {
        std::string technique;
        AllocatorConfig config;
    };
    std::vector<Candidate> candidates;
    if (!recorded.expandableSegments) {
        AllocatorConfig c = recorded;
        c.expandableSegments = true;
        candidates.push_back({"expandable_segments", c});
    }
    if (!recorded.expandableSegments && recorded.maxSplitSize == std::numeric_limits<uint64_t>::max()) {
        for (uint64_t mb : {128, 512}) {
            AllocatorConfig c = recorded;
            c.maxSplitSize = mb << 20;
            candidates.push_back({"max_split_size_mb:" + std::to_string(mb), c});
        }
    }
    if (capacity && recorded.garbageCollectionThreshold == 0.0) {
        AllocatorConfig c = recorded;
        c.garbageCollectionThreshold = 0.8;
        candidates.push_back({"garbage_collection_threshold:0.8", c});
    }

    std::vector<Fix> fixes;
    for (const Candidate &candidate : candidates) {
        ReplayOptions options;
        options.config = candidate.config;
        options.capacity = capacity;
        options.capacitySource = "advise";
        const ReplayResult r = replayTrace(snapshot, index, options);
        if (r.predicted.oomAt || r.predicted.peakReservedBytes >= needed)
            continue;
        const uint64_t saves = needed - r.predicted.peakReservedBytes;
        if (double(saves) < double(needed) * 0.005)
            continue;
        Fix f;
        f.technique = candidate.technique;
        f.effort = Effort::Config;
        f.savesBytes = static_cast<int64_t>(saves);
        f.peakAfterBytes = r.predicted.peakReservedBytes;
        if (capacity)
            f.fits = r.predicted.peakReservedBytes <= *capacity;
        f.why = "replayed through torch's caching allocator with PYTORCH_CUDA_ALLOC_CONF=" + candidate.config.text() + ": reserved peak " +
                formatBytes(r.predicted.peakReservedBytes) + (oom ? " and no OOM, where the recorded run needed " : " instead of ") + formatBytes(needed) +
                (oom ? " at its OOM" : "") + " (memlens replay FILE --alloc-conf " + candidate.config.text() + ")";
        f.affects = {"reserved"};
        fixes.push_back(std::move(f));
    }
    // One max_split_size_mb: the better of the values tried.
    const auto isMaxSplit = [](const Fix &f) { return f.technique.rfind("max_split_size_mb", 0) == 0; };
    const Fix *best = nullptr;
    for (const Fix &f : fixes) {
        if (isMaxSplit(f) && (!best || f.savesBytes > best->savesBytes))
            best = &f;
    }
    std::vector<Fix> out;
    for (const Fix &f : fixes) {
        if (!isMaxSplit(f) || &f == best)
            out.push_back(f);
    }
    return out;
}

} // namespace memlens
