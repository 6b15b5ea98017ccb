#include "advice/RunSamples.h"

#include <numeric>

namespace memlens {

int64_t RunSample::total() const
{
    return std::accumulate(categories.begin(), categories.end(), int64_t(0));
}

std::vector<RunSample> sampleRun(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories,
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
    // Which events are sampled is known beforehand, so only they are placed in a phase.
    const uint32_t every = static_cast<uint32_t>(std::max<size_t>(1, ev.count() / std::max<size_t>(1, count)));
    std::vector<uint32_t> sampled;
    for (uint32_t e = 0; e < ev.count(); ++e)
        if (e % every == every - 1 || TracePoint::after(EventId(e)) == mustInclude || e + 1 == ev.count())
            sampled.push_back(e);
    const Phases phases(snapshot, index.device());
    const std::vector<int32_t> samplePhase = phases.classifyEvents(ev, sampled);
    std::vector<RunSample> out;
    if (ev.count() == 0 || mustInclude.isStart())
        out.push_back(running);
    size_t k = 0;
    for (uint32_t e = 0; e < ev.count(); ++e) {
        index.forEachLiveChange(EventId(e), add);
        if (k < sampled.size() && sampled[k] == e) {
            running.point = TracePoint::after(EventId(e));
            running.part = k < samplePhase.size() ? phases.kind(samplePhase[k]) : StepPart::None;
            out.push_back(running);
            ++k;
        }
    }
    return out;
}

} // namespace memlens
