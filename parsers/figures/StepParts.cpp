#include "figures/StepParts.h"

#include "attribution/StackEvidence.h"

#include <algorithm>

namespace memlens {

StepParts::StepParts(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases)
    : optimizer_(findOptimizerSteps(snapshot, index, phases)), entries_(static_cast<uint32_t>(index.eventCount()))
{
    const EventTable &ev = index.events();
    const OptimizerSteps &optimizer = optimizer_;
    StackEvidenceCache evidence(snapshot);
    const ThreadSides sides = ThreadSides::of(ev, evidence);
    const StitchBridges bridges(snapshot, index.device());
    StepPart part = StepPart::None;
    OptimizerRunCursor cursor(optimizer.runs);
    for (uint32_t e = 0; e < ev.count(); ++e) {
        StepPart now = part;
        if (cursor.inRun(ev.timeUs[e])) {
            now = StepPart::Optimizer;
        } else {
            if (part == StepPart::Optimizer)
                now = StepPart::None; // the optimizer step is over: between steps until work shows
            const Action action = ev.action[e];
            if ((action == Action::Alloc || action == Action::Oom) && !bridges.has(ev, e)) {
                const StackEvidence &f = evidence.of(ev.stack[e]);
                if (f.optimizer)
                    now = StepPart::Optimizer;
                else if (sides.engine(f))
                    now = StepPart::Backward;
                else if (f.moduleCall)
                    now = StepPart::Forward;
            } else if ((action == Action::FreeRequested || action == Action::FreeCompleted) && evidence.of(ev.stack[e]).optimizer) {
                now = StepPart::Optimizer; // a free's stack (context="all"): the optimizer step freeing its temporaries
            }
        }
        if (changes_.empty() ? now != StepPart::None : now != changes_.back().part)
            changes_.push_back({e, now});
        part = now;
    }
}

std::vector<std::pair<EventId, EventId>> StepParts::runsOf(StepPart part) const
{
    std::vector<std::pair<EventId, EventId>> runs;
    for (size_t i = 0; i < changes_.size(); ++i) {
        if (changes_[i].part == part)
            runs.push_back({EventId(changes_[i].from), EventId(i + 1 < changes_.size() ? changes_[i + 1].from : entries_)});
    }
    return runs;
}

StepPart StepParts::at(TracePoint t) const
{
    if (t.isStart())
        return StepPart::None;
    const uint32_t e = t.lastEntry().index();
    const auto it = std::upper_bound(changes_.begin(), changes_.end(), e, [](uint32_t entry, const Change &c) { return entry < c.from; });
    return it == changes_.begin() ? StepPart::None : std::prev(it)->part;
}

} // namespace memlens
