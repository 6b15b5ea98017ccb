#include "advice/RunSamples.h"

#include <numeric>

namespace memlens {

int64_t RunSample::total() const
{
    return std::accumulate(categories.begin(), categories.end(), int64_t(0));
}

std::vector<RunSample> sampleRun(const DeviceIndex &index, const AllocationCategories &categories, const StepParts &parts,
                                 const std::function<Bucket(AllocationId allocation)> &bucketOf, TracePoint mustInclude, size_t count)
{
    const EventTable &ev = index.events();
    std::vector<Bucket> buckets(index.allocationCount());
    for (uint32_t id = 0; id < buckets.size(); ++id)
        buckets[id] = bucketOf(AllocationId(id));
    RunSample running;
    auto add = [&](AllocationId id, int64_t bytes) {
        running.categories[static_cast<size_t>(categories.of(id))] += bytes;
        if (buckets[id.index()] == Bucket::Logits)
            running.logits += bytes;
        else if (buckets[id.index()] == Bucket::Scores)
            running.scores += bytes;
    };
    for (AllocationId id : index.liveAt(TracePoint::start()))
        add(id, static_cast<int64_t>(index.requestedBytes(id)));
    const uint32_t every = static_cast<uint32_t>(std::max<size_t>(1, ev.count() / std::max<size_t>(1, count)));
    std::vector<RunSample> out;
    if (ev.count() == 0 || mustInclude.isStart())
        out.push_back(running);
    for (uint32_t e = 0; e < ev.count(); ++e) {
        index.forEachLiveChange(EventId(e), add);
        const TracePoint point = TracePoint::after(EventId(e));
        if (e % every == every - 1 || point == mustInclude || e + 1 == ev.count()) {
            running.point = point;
            running.part = parts.at(point);
            out.push_back(running);
        }
    }
    return out;
}

} // namespace memlens
