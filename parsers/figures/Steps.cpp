#include "figures/Steps.h"

#include "figures/StepParts.h"
#include "index/AllocatorState.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace memlens {

namespace {

// "ProfilerStep#12" and "ProfilerStep#13", or a script's own "step0" and "step1", repeat one
// pattern: a trailing iteration number (after '#', '_', ' ' or nothing) is not part of it, nor
// the module a framework names its per-layer marks by ("FSDP::pre_forward (layers.3)").
std::string_view patternName(std::string_view name)
{
    if (name.ends_with(')')) {
        if (const size_t open = name.rfind(" ("); open != std::string_view::npos && open > 0)
            name = name.substr(0, open);
    }
    size_t digits = name.size();
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
        --digits;
    if (digits == name.size() || digits == 0)
        return name;
    if (name[digits - 1] == '#' || name[digits - 1] == '_' || name[digits - 1] == ' ')
        --digits;
    return name.substr(0, digits);
}

struct Span {
    int64_t start, end;
    bool partial = false;
};

// Active bytes just before time t.
uint64_t activeBefore(const DeviceIndex &index, int64_t t)
{
    const auto &times = index.events().timeUs;
    const auto at = std::lower_bound(times.begin(), times.end(), t);
    return index.activeAt(TracePoint::afterFirst(static_cast<size_t>(at - times.begin())));
}

// A training step holds one optimizer step: a pattern that starts again before the optimizer
// stepped (a per-layer mark, a micro-batch's forward) is not a step's beginning.
bool oncePerOptimizerStep(const std::vector<int64_t> &starts, const std::vector<int64_t> &optimizer)
{
    for (size_t i = 1; i < starts.size(); ++i) {
        const auto at = std::lower_bound(optimizer.begin(), optimizer.end(), starts[i - 1]);
        if (at == optimizer.end() || *at >= starts[i])
            return false;
    }
    return true;
}

// The pattern that opens each step (see the header), or empty: none repeats. `cutOff` are the
// phases whose START fell out of the window: they count as occurrences, without a start.
std::string_view openingPattern(const std::vector<const PhaseRange *> &top, const std::vector<const PhaseRange *> &cutOff,
                                const std::vector<int64_t> &optimizer, const DeviceIndex &index)
{
    for (const PhaseRange *p : top) {
        if (patternName(p->name).starts_with("ProfilerStep"))
            return patternName(p->name);
    }
    if (optimizer.empty())
        return {};
    std::map<std::string_view, std::vector<uint64_t>> activeAtStarts;
    std::map<std::string_view, std::vector<int64_t>> startsOf;
    std::vector<std::string_view> order; // by first start
    for (const PhaseRange *p : top) {
        auto &values = activeAtStarts[patternName(p->name)];
        if (values.empty())
            order.push_back(patternName(p->name));
        values.push_back(activeBefore(index, *p->startUs));
        startsOf[patternName(p->name)].push_back(*p->startUs);
    }
    std::map<std::string_view, size_t> occurrences;
    for (const auto &[pattern, values] : activeAtStarts)
        occurrences[pattern] = values.size();
    for (const PhaseRange *p : cutOff) {
        if (auto it = occurrences.find(patternName(p->name)); it != occurrences.end())
            ++it->second;
    }
    std::string_view best;
    uint64_t bestMedian = UINT64_MAX;
    for (std::string_view pattern : order) {
        auto &values = activeAtStarts[pattern];
        // The optimizer's own phases end a step; the runs below place them.
        if (occurrences[pattern] < 2 || stepPartOfName(pattern) == StepPart::Optimizer || !oncePerOptimizerStep(startsOf[pattern], optimizer))
            continue;
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        if (values[values.size() / 2] < bestMedian) {
            bestMedian = values[values.size() / 2];
            best = pattern;
        }
    }
    return best;
}

struct TopPhases {
    std::vector<const PhaseRange *> top;    // not inside the phase that started before it and is still open
    std::vector<const PhaseRange *> cutOff; // their START fell out of the window
};

TopPhases topPhases(const std::vector<PhaseRange> &phases)
{
    TopPhases out;
    std::vector<const PhaseRange *> started;
    for (const PhaseRange &p : phases)
        (p.startUs ? started : out.cutOff).push_back(&p);
    std::stable_sort(started.begin(), started.end(), [](auto *a, auto *b) { return *a->startUs < *b->startUs; });
    int64_t openUntil = INT64_MIN;
    for (const PhaseRange *p : started) {
        if (*p->startUs < openUntil)
            continue;
        out.top.push_back(p);
        openUntil = p->endUs.value_or(INT64_MAX);
    }
    return out;
}

// [start, end) of each step in time, each opened by a phase of `pattern`.
std::vector<Span> patternSpans(const TopPhases &phasesAtTop, std::string_view pattern, const std::vector<PhaseRange> &phases,
                               const DeviceIndex &index, bool truncated)
{
    const auto &[top, cutOff] = phasesAtTop;
    std::map<std::string_view, int> cycle; // patterns that repeat: the cycle's phases
    for (const PhaseRange *p : top)
        ++cycle[patternName(p->name)];
    for (const PhaseRange *p : cutOff) {
        if (auto it = cycle.find(patternName(p->name)); it != cycle.end())
            ++it->second;
    }
    std::erase_if(cycle, [&](const auto &c) { return c.second < 2 && c.first != pattern; });
    const auto inCycle = [&](const std::string &name) { return cycle.contains(patternName(name)); };

    std::vector<Span> spans;
    std::vector<std::vector<std::string_view>> patternsOf; // each step's top-level patterns
    bool openPhase = false;                                  // in the last step
    int64_t lastEnd = INT64_MIN;
    for (const PhaseRange *p : top) {
        if (patternName(p->name) == pattern) {
            if (!spans.empty())
                spans.back().end = *p->startUs;
            spans.push_back({*p->startUs, INT64_MAX});
            patternsOf.emplace_back();
            openPhase = false;
        } else if (spans.empty()) {
            continue;
        }
        patternsOf.back().push_back(patternName(p->name));
        openPhase = openPhase || !p->endUs;
        lastEnd = std::max(lastEnd, p->endUs.value_or(INT64_MAX));
    }
    if (spans.empty())
        return spans;
    spans.back().end = lastEnd == INT64_MAX ? INT64_MAX : lastEnd + 1;
    if (patternsOf.size() >= 2) {
        const auto &before = patternsOf[patternsOf.size() - 2];
        const auto &last = patternsOf.back();
        const bool lacking = std::any_of(before.begin(), before.end(), [&](std::string_view p) { return std::find(last.begin(), last.end(), p) == last.end(); });
        spans.back().partial = openPhase || lacking;
    } else {
        spans.back().partial = openPhase;
    }
    // The window opened mid-step: the cycle's phases (or a phase whose START fell out) come first.
    const bool cutAtStart = std::any_of(phases.begin(), phases.end(), [&](const PhaseRange &p) {
        const int64_t at = p.startUs ? *p.startUs : p.endUs.value_or(INT64_MAX);
        return at < spans.front().start && inCycle(p.name);
    });
    if (cutAtStart)
        spans.insert(spans.begin(), Span{INT64_MIN, spans.front().start, true});
    // A step that opened before the first entry of a window that dropped older entries lost some.
    else if (truncated && index.eventCount() && spans.front().start < index.events().timeUs[0])
        spans.front().partial = true;
    return spans;
}

// [start, end) of each step in time, one per optimizer step: a step opens where its forward or
// backward work begins and lasts until the next one opens; the last ends with its optimizer step.
std::vector<Span> runSpans(const OptimizerSteps &optimizer, const DeviceIndex &index, bool truncated, bool startsCutOff)
{
    const auto &[runs, source, workFrom] = optimizer;
    std::vector<Span> spans;
    for (size_t k = 0; k < runs.size(); ++k) {
        // Work begins before its optimizer step; none before the first: the trace opened in it.
        const int64_t start = workFrom[k] <= runs[k].startUs ? workFrom[k] : (k == 0 ? INT64_MIN : runs[k - 1].endUs + 1);
        if (!spans.empty())
            spans.back().end = start;
        const bool running = runs[k].endUs == INT64_MAX; // an optimizer step still running: the dump cut it
        spans.push_back({start, running ? INT64_MAX : runs[k].endUs + 1, running});
        if (running)
            return spans;
    }
    // Forward or backward ran after the last optimizer step: the next step, cut by the dump
    // (the next batch loaded alone is not yet one).
    if (workFrom.back() != INT64_MAX) {
        spans.back().end = workFrom.back();
        spans.push_back({workFrom.back(), INT64_MAX, true});
    }
    // The first step is whole when the trace saw it begin: nothing dropped, its work began inside
    // the trace, and no more memory in use then than at its end (a window opened mid-step holds
    // that step's activations).
    Span &first = spans.front();
    if (first.end != INT64_MAX) {
        const bool sawItBegin = !truncated && !startsCutOff && first.start != INT64_MIN &&
                                activeBefore(index, first.start) <= activeBefore(index, first.end);
        first.partial = first.partial || !sawItBegin;
    }
    return spans;
}

// After a stitched run's gap the next dump's window may open mid-step, and the first step found
// there may be the tail of one begun in the gap (its backward and optimizer step): it is partial
// when backward frees, inside it, memory that was already in use where it starts (the forward's
// activations). What a whole step finds in use at its start (weights, optimizer state, last
// step's gradients) is never freed by backward.
void markBegunInGaps(std::vector<Span> &spans, const Snapshot &snapshot, const StepParts &parts, const DeviceIndex &index)
{
    const auto &times = index.events().timeUs;
    for (const TraceGap &g : snapshot.gaps) {
        const auto span = std::find_if(spans.begin(), spans.end(), [&](const Span &s) { return s.start >= g.toUs; });
        if (g.device != index.device() || span == spans.end() || span->partial)
            continue;
        // In use at the start: what the stitcher's bridge made at the gap's end (entries without a
        // stack at the first entry's time) and anything older, not what the step itself made then.
        const auto from = std::upper_bound(times.begin(), times.end(), span->start);
        for (AllocationId id : index.liveAt(TracePoint::afterFirst(static_cast<size_t>(from - times.begin())))) {
            const EventId made = index.allocation(id).allocEvent;
            if (!made.isNone() && times[made.index()] == span->start && index.events().stack[made.index()] != StackTable::kEmpty)
                continue;
            const EventId freed = index.allocation(id).firstFree();
            if (freed != kNever && times[freed.index()] < span->end && parts.at(TracePoint::after(freed)) == StepPart::Backward) {
                span->partial = true;
                break;
            }
        }
    }
}

struct StepSpans {
    std::vector<Span> spans;
    StepSource source = StepSource::None;
};

StepSpans stepSpans(const Snapshot &snapshot, const std::vector<PhaseRange> &phases, const StepParts &parts, const DeviceIndex &index, bool truncated)
{
    const TopPhases phasesAtTop = topPhases(phases);
    StepSpans out;
    const bool profilerSteps = std::any_of(phasesAtTop.top.begin(), phasesAtTop.top.end(),
                                           [](const PhaseRange *p) { return patternName(p->name).starts_with("ProfilerStep"); });
    const OptimizerSteps none;
    const OptimizerSteps &optimizer = profilerSteps ? none : parts.optimizerSteps();
    std::vector<int64_t> optimizerStarts;
    for (const OptimizerRun &r : optimizer.runs)
        optimizerStarts.push_back(r.startUs);
    out.source = optimizer.source;
    if (const std::string_view pattern = openingPattern(phasesAtTop.top, phasesAtTop.cutOff, optimizerStarts, index); !pattern.empty()) {
        out.spans = patternSpans(phasesAtTop, pattern, phases, index, truncated);
        out.source = profilerSteps ? StepSource::ProfilerStep : StepSource::Marks;
    } else if (!optimizer.runs.empty()) {
        out.spans = runSpans(optimizer, index, truncated, !phasesAtTop.cutOff.empty());
    }
    for (Span &span : out.spans) {
        span.partial = span.partial || std::any_of(snapshot.gaps.begin(), snapshot.gaps.end(), [&](const TraceGap &g) {
            return g.device == index.device() && g.fromUs < span.end && g.toUs > span.start;
        });
    }
    markBegunInGaps(out.spans, snapshot, parts, index);
    // One whole cycle is not yet a loop: its marks could as well be a single pass's.
    if (std::count_if(out.spans.begin(), out.spans.end(), [](const Span &span) { return !span.partial; }) < 2)
        out.spans.clear();
    return out;
}

// Numbers the steps of a stitched run: within each dump (the steps begun after the previous
// dump's end, up to its own), the last is the dump's iteration, the one before it one less.
void numberIterations(std::vector<StepSummary> &steps, const std::vector<DumpEnd> &ends)
{
    size_t first = 0;
    for (const DumpEnd &end : ends) {
        size_t last = first;
        while (last < steps.size() && steps[last].startUs <= end.timeUs)
            ++last;
        for (size_t i = first; i < last; ++i)
            steps[i].iteration = end.iteration - static_cast<int64_t>(last - 1 - i);
        first = last;
    }
}

} // namespace

std::vector<IterationGap> iterationGaps(const std::vector<StepSummary> &steps)
{
    std::vector<IterationGap> gaps;
    for (size_t k = 1; k < steps.size(); ++k) {
        const std::optional<int64_t> before = steps[k - 1].iteration, after = steps[k].iteration;
        if (before && after && *after > *before + 1)
            gaps.push_back({k, *before + 1, *after - 1});
    }
    return gaps;
}

std::string iterationGapText(const IterationGap &gap)
{
    return gap.first == gap.last ? "iteration " + std::to_string(gap.first) : "iterations " + std::to_string(gap.first) + "–" + std::to_string(gap.last);
}

std::string stepName(const StepSummary &step)
{
    return step.iteration ? "iteration " + std::to_string(*step.iteration) : "step " + std::to_string(step.index);
}

StepFinding findSteps(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases, const StepParts &parts,
                      bool truncated)
{
    const auto [spans, source] = stepSpans(snapshot, phases, parts, index, truncated);
    const EventTable &ev = index.events();
    const auto reserved = index.reservedChanges();
    std::vector<StepSummary> steps;
    size_t change = 0;
    uint64_t reservedNow = index.startReservedBytes();
    // Allocated bytes as the allocator counts them, in block sizes.
    const BlockSizes blockSizes(snapshot, index);
    auto blockBytes = [&](AllocationId allocation) { return blockSizes.of(allocation); };
    uint64_t allocated = 0;
    for (AllocationId id : index.liveAt(TracePoint::start()))
        allocated += blockBytes(id);
    size_t s = 0;
    for (uint32_t e = 0; e < ev.count() && s < spans.size(); ++e) {
        const EventId event(e);
        while (change < reserved.size() && reserved[change].first <= event)
            reservedNow = reserved[change++].second;
        if (ev.action[e] == Action::Alloc) {
            for (const auto &[at, ended] : index.endedBy(event))
                allocated -= blockBytes(ended);
            allocated += blockBytes(index.allocationOfEvent(event));
        } else if (ev.action[e] == Action::FreeCompleted) {
            if (const AllocationId freed = index.allocationOfEvent(event); !freed.isNone())
                allocated -= blockBytes(freed);
        }
        const int64_t t = ev.timeUs[e];
        while (s < spans.size() && t >= spans[s].end)
            ++s;
        if (s >= spans.size() || t < spans[s].start)
            continue;
        if (steps.empty() || steps.back().index != s) {
            StepSummary step;
            step.index = static_cast<uint32_t>(s);
            step.firstEvent = event;
            step.startUs = spans[s].start == INT64_MIN ? ev.timeUs[e] : spans[s].start;
            step.partial = spans[s].partial;
            step.endUs = spans[s].end == INT64_MAX ? ev.timeUs[ev.count() - 1] : spans[s].end;
            step.peakEvent = event;
            steps.push_back(step);
        }
        StepSummary &step = steps.back();
        step.lastEvent = event;
        const uint64_t active = index.activeAt(TracePoint::after(event));
        if (active > step.peakActiveBytes) {
            step.peakActiveBytes = active;
            step.peakEvent = event;
        }
        step.endActiveBytes = active;
        step.endAllocatedBytes = allocated;
        step.peakReservedBytes = std::max(step.peakReservedBytes, reservedNow);
    }
    // Steps with no event of their own (possible in a cut trace) are not reported.
    for (uint32_t i = 0; i < steps.size(); ++i)
        steps[i].index = i;
    numberIterations(steps, snapshot.dumpEnds);
    return {std::move(steps), source};
}

size_t wholeStepCount(const std::vector<StepSummary> &steps)
{
    return static_cast<size_t>(std::count_if(steps.begin(), steps.end(), [](const StepSummary &s) { return !s.partial; }));
}

const StepSummary &highestStep(const std::vector<StepSummary> &steps)
{
    return *std::max_element(steps.begin(), steps.end(), [](const StepSummary &a, const StepSummary &b) { return a.peakActiveBytes < b.peakActiveBytes; });
}

int stepOfEvent(const std::vector<StepSummary> &steps, EventId event)
{
    auto it = std::upper_bound(steps.begin(), steps.end(), event, [](EventId e, const StepSummary &s) { return e < s.firstEvent; });
    if (it == steps.begin())
        return -1;
    --it;
    return event <= it->lastEvent ? static_cast<int>(it - steps.begin()) : -1;
}

std::vector<LeakSuspect> findLeakSuspects(const DeviceIndex &index, const std::vector<StepSummary> &steps)
{
    std::vector<LeakSuspect> suspects;
    if (wholeStepCount(steps) < kLeakSuspectSteps)
        return suspects;
    std::map<StackId, LeakSuspect> byStack;
    for (uint32_t i = 0; i < index.allocationCount(); ++i) {
        const AllocationId id(i);
        const Allocation &a = index.allocation(id);
        if (a.fromBeforeTrace() || a.freeCompleted != kNever)
            continue;
        // Made outside every step (before the first opened, or after the last) it grew in no
        // step, but it is still live at the end from the same stack: its bytes count.
        const int step = stepOfEvent(steps, a.allocEvent);
        const AllocationDetail d = index.detail(id);
        LeakSuspect &s = byStack[d.stack];
        if (s.perStepBytes.empty()) {
            s.stack = d.stack;
            s.perStepBytes.assign(steps.size(), 0);
        }
        if (step >= 0)
            s.perStepBytes[static_cast<size_t>(step)] += d.size;
        s.bytes += d.size;
        ++s.allocations;
    }
    for (auto &[stack, s] : byStack) {
        s.steps = static_cast<uint32_t>(std::count_if(s.perStepBytes.begin(), s.perStepBytes.end(), [](uint64_t b) { return b > 0; }));
        // Growing means more than once: parameters, optimizer state, caches and workspaces are
        // created in one step and kept.
        if (s.steps >= 2)
            suspects.push_back(std::move(s));
    }
    std::stable_sort(suspects.begin(), suspects.end(), [](const LeakSuspect &a, const LeakSuspect &b) { return a.bytes > b.bytes; });
    return suspects;
}

std::string whyNoSteps(const StepFinding &found)
{
    if (!found.steps.empty())
        return {};
    if (found.source == StepSource::None)
        return "the trace holds no ProfilerStep#, no optimizer step (torch.optim's Optimizer.step# mark) and no allocation or "
               "free under torch/optim in its stacks";
    return "fewer than two whole training steps (" + std::string(stepSourceText(found.source)) + " show " +
           (found.source == StepSource::ProfilerStep ? "the cycles" : "the optimizer steps") + ")";
}

std::string whyNoLeakSuspects(const StepFinding &found, size_t suspects)
{
    if (suspects > 0)
        return {};
    const std::vector<StepSummary> &steps = found.steps;
    if (steps.empty())
        // "fewer than two whole training steps (…)" says it already; "none: no training steps:
        // fewer than two whole training steps" said it twice.
        return found.source == StepSource::None ? "no training steps: " + whyNoSteps(found) : whyNoSteps(found);
    if (const size_t whole = wholeStepCount(steps); whole < kLeakSuspectSteps)
        return std::to_string(whole) + " whole steps; telling growth from a step's own memory takes " + std::to_string(kLeakSuspectSteps);
    return "nothing allocated in one step was still alive at the end and grew in the steps after it";
}

} // namespace memlens
