#include "figures/OptimizerSteps.h"

#include "attribution/StackEvidence.h"

#include <algorithm>

namespace memlens {

namespace {

bool isTorchOptimizerMark(std::string_view name)
{
    return name.starts_with("Optimizer.step#") || name.starts_with("Optimizer.zero_grad#");
}

// Ranges in start order, overlapping or nested ones joined.
std::vector<OptimizerRun> joined(std::vector<OptimizerRun> runs)
{
    std::sort(runs.begin(), runs.end(), [](const OptimizerRun &a, const OptimizerRun &b) { return a.startUs < b.startUs; });
    std::vector<OptimizerRun> out;
    for (const OptimizerRun &r : runs) {
        if (!out.empty() && r.startUs <= out.back().endUs)
            out.back().endUs = std::max(out.back().endUs, r.endUs);
        else
            out.push_back(r);
    }
    return out;
}

// Runs with no forward or backward work between them are one optimizer step: the step and the
// zero_grad after it, several optimizers stepping one after another, a zero_grad at the top of the
// next iteration. Work is an allocation a module's call or the autograd engine made (in a trace
// recorded without stacks, any allocation: nothing tells them apart); `found.workFrom` gets when
// it first came in each gap that is left.
void joinAcrossIdleGaps(OptimizerSteps &found, std::vector<OptimizerRun> runs, const EventTable &ev, StackEvidenceCache &evidence,
                        const ThreadSides &sides, const StitchBridges &bridges)
{
    bool stacksRecorded = false;
    for (uint32_t e = 0; e < ev.count() && !stacksRecorded; ++e)
        stacksRecorded = ev.action[e] == Action::Alloc && ev.stack[e] != StackTable::kEmpty;
    runs = joined(std::move(runs));
    if (runs.empty())
        return;
    std::vector<int64_t> workFrom(runs.size() + 1, INT64_MAX); // [k]: in the gap before run k; [n]: after the last
    OptimizerRunCursor cursor(runs);
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (ev.action[e] != Action::Alloc)
            continue;
        const int64_t t = ev.timeUs[e];
        const size_t before = cursor.endedBefore(t);
        if (workFrom[before] <= t || (before < runs.size() && runs[before].startUs <= t))
            continue;
        const StackEvidence &f = evidence.of(ev.stack[e]);
        if ((!stacksRecorded || sides.engine(f) || f.moduleCall) && !bridges.has(ev, e))
            workFrom[before] = t;
    }
    found.runs = {runs.front()};
    found.workFrom = {workFrom[0]};
    for (size_t k = 1; k < runs.size(); ++k) {
        if (workFrom[k] != INT64_MAX) {
            found.runs.push_back(runs[k]);
            found.workFrom.push_back(workFrom[k]);
        } else {
            found.runs.back().endUs = runs[k].endUs;
        }
    }
    found.workFrom.push_back(workFrom.back());
}

std::vector<OptimizerRun> runsOfMarks(const std::vector<PhaseRange> &phases, bool (*isOptimizer)(const PhaseRange &))
{
    std::vector<OptimizerRun> runs;
    for (const PhaseRange &p : phases) {
        if (p.startUs && isOptimizer(p))
            runs.push_back({*p.startUs, p.endUs.value_or(INT64_MAX)});
    }
    return runs;
}

// Entries whose stacks run torch.optim's code, as ranges: an allocation of anything else ends one.
std::vector<OptimizerRun> runsOfFrames(const EventTable &ev, StackEvidenceCache &evidence)
{
    std::vector<OptimizerRun> runs;
    bool open = false;
    for (uint32_t e = 0; e < ev.count(); ++e) {
        if (ev.stack[e] == StackTable::kEmpty) {
            open = open && ev.action[e] != Action::Alloc;
            continue;
        }
        const Action action = ev.action[e];
        if (action != Action::Alloc && action != Action::FreeRequested && action != Action::FreeCompleted)
            continue;
        if (evidence.of(ev.stack[e]).optimizer) {
            if (open)
                runs.back().endUs = std::max(runs.back().endUs, ev.timeUs[e]);
            else
                runs.push_back({ev.timeUs[e], ev.timeUs[e]});
            open = true;
        } else if (action == Action::Alloc) {
            open = false;
        }
    }
    return runs;
}

} // namespace

size_t OptimizerRunCursor::endedBefore(int64_t t)
{
    if (t < last_)
        before_ = static_cast<size_t>(
            std::upper_bound(runs_.begin(), runs_.end(), t, [](int64_t time, const OptimizerRun &r) { return time <= r.endUs; }) - runs_.begin());
    while (before_ < runs_.size() && runs_[before_].endUs < t)
        ++before_;
    last_ = t;
    return before_;
}

StitchBridges::StitchBridges(const Snapshot &snapshot, int device)
{
    for (const TraceGap &g : snapshot.gaps) {
        if (g.device == device)
            ends_.push_back(g.toUs);
    }
    std::sort(ends_.begin(), ends_.end());
}

std::string_view stepSourceName(StepSource source)
{
    switch (source) {
    case StepSource::ProfilerStep: return "profiler_step";
    case StepSource::OptimizerMarks: return "optimizer_marks";
    case StepSource::OptimizerFrames: return "optimizer_frames";
    case StepSource::Marks: return "marks";
    case StepSource::None: break;
    }
    return {};
}

std::string_view stepSourceText(StepSource source)
{
    switch (source) {
    case StepSource::ProfilerStep: return "the profiler's ProfilerStep# marks";
    case StepSource::OptimizerMarks: return "torch.optim's Optimizer.step# marks";
    case StepSource::OptimizerFrames: return "the optimizer's frames in the stacks";
    case StepSource::Marks: return "record_function marks repeating once per optimizer step";
    case StepSource::None: break;
    }
    return "nothing";
}

OptimizerSteps findOptimizerSteps(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases)
{
    const EventTable &ev = index.events();
    StackEvidenceCache evidence(snapshot);
    const ThreadSides sides = ThreadSides::of(ev, evidence);
    OptimizerSteps found;
    std::vector<OptimizerRun> runs = runsOfMarks(phases, [](const PhaseRange &p) { return isTorchOptimizerMark(p.name); });
    found.source = StepSource::OptimizerMarks;
    if (runs.empty()) {
        runs = runsOfFrames(ev, evidence);
        found.source = StepSource::OptimizerFrames;
    }
    if (runs.empty()) {
        runs = runsOfMarks(phases, [](const PhaseRange &p) { return stepPartOfName(p.name) == StepPart::Optimizer; });
        found.source = StepSource::Marks;
    }
    if (runs.empty())
        found.source = StepSource::None;
    joinAcrossIdleGaps(found, std::move(runs), ev, evidence, sides, StitchBridges(snapshot, index.device()));
    return found;
}

} // namespace memlens
