#include "figures/Steps.h"

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

// When the optimizer stepped: torch.optim's own "Optimizer.step#AdamW.step" ranges (any optimizer
// derived from torch.optim.Optimizer records them), else the script's own optimizer phases
// (zero_grad is not a step), outermost only. Sorted.
std::vector<int64_t> optimizerSteps(const std::vector<PhaseRange> &phases)
{
    std::vector<int64_t> times;
    for (const PhaseRange &p : phases) {
        if (p.startUs && p.name.starts_with("Optimizer.step#"))
            times.push_back(*p.startUs);
    }
    if (times.empty()) {
        int64_t openUntil = INT64_MIN;
        std::vector<const PhaseRange *> started;
        for (const PhaseRange &p : phases) {
            if (p.startUs && stepPartOfName(p.name) == StepPart::Optimizer && p.name.find("zero_grad") == std::string::npos)
                started.push_back(&p);
        }
        std::stable_sort(started.begin(), started.end(), [](auto *a, auto *b) { return *a->startUs < *b->startUs; });
        for (const PhaseRange *p : started) {
            if (*p->startUs >= openUntil)
                times.push_back(*p->startUs);
            openUntil = std::max(openUntil, p->endUs.value_or(INT64_MAX));
        }
    }
    std::sort(times.begin(), times.end());
    return times;
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
        if (occurrences[pattern] < 2 || !oncePerOptimizerStep(startsOf[pattern], optimizer))
            continue;
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        if (values[values.size() / 2] < bestMedian) {
            bestMedian = values[values.size() / 2];
            best = pattern;
        }
    }
    return best;
}

// [start, end) of each step in time.
std::vector<Span> stepSpans(const std::vector<PhaseRange> &phases, const DeviceIndex &index, const std::vector<TraceGap> &gaps, bool truncated)
{
    std::vector<const PhaseRange *> started, cutOff;
    for (const PhaseRange &p : phases)
        (p.startUs ? started : cutOff).push_back(&p);
    std::stable_sort(started.begin(), started.end(), [](auto *a, auto *b) { return *a->startUs < *b->startUs; });
    // Top level: not inside the phase that started before it and is still open.
    std::vector<const PhaseRange *> top;
    int64_t openUntil = INT64_MIN;
    for (const PhaseRange *p : started) {
        if (*p->startUs < openUntil)
            continue;
        top.push_back(p);
        openUntil = p->endUs.value_or(INT64_MAX);
    }
    const std::string_view pattern = openingPattern(top, cutOff, optimizerSteps(phases), index);
    std::vector<Span> spans;
    if (pattern.empty())
        return spans;
    std::map<std::string_view, int> cycle; // patterns that repeat: the cycle's phases
    for (const PhaseRange *p : top)
        ++cycle[patternName(p->name)];
    for (const PhaseRange *p : cutOff) {
        if (auto it = cycle.find(patternName(p->name)); it != cycle.end())
            ++it->second;
    }
    std::erase_if(cycle, [&](const auto &c) { return c.second < 2 && c.first != pattern; });
    const auto inCycle = [&](const std::string &name) { return cycle.contains(patternName(name)); };

    std::vector<std::vector<std::string_view>> patternsOf; // each step's top-level patterns
    bool openPhase = false;                                  // in the last step
    int64_t lastEnd = INT64_MIN;
    // When only the optimizer's own phases qualify (a run marked per layer, or not at all), a
    // step is what lies between two optimizer steps: it opens with the first phase after one.
    const bool afterOptimizer = stepPartOfName(pattern) == StepPart::Optimizer;
    const auto isOptimizer = [](const PhaseRange *p) { return stepPartOfName(p->name) == StepPart::Optimizer; };
    for (size_t i = 0; i < top.size(); ++i) {
        const PhaseRange *p = top[i];
        const bool opens = afterOptimizer ? !isOptimizer(p) && (i == 0 || isOptimizer(top[i - 1])) : patternName(p->name) == pattern;
        if (opens) {
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
    if (afterOptimizer && (truncated || !cutOff.empty()))
        spans.front().partial = true; // its first phases may have fallen out of the window
    else if (cutAtStart)
        spans.insert(spans.begin(), Span{INT64_MIN, spans.front().start, true});
    // A step that opened before the first entry of a window that dropped older entries lost some.
    else if (truncated && index.eventCount() && spans.front().start < index.events().timeUs[0])
        spans.front().partial = true;
    for (Span &span : spans) {
        span.partial = span.partial || std::any_of(gaps.begin(), gaps.end(), [&](const TraceGap &g) {
            return g.device == index.device() && g.fromUs < span.end && g.toUs > span.start;
        });
    }
    // One whole cycle is not yet a loop: its marks could as well be a single pass's.
    if (std::count_if(spans.begin(), spans.end(), [](const Span &span) { return !span.partial; }) < 2)
        spans.clear();
    return spans;
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

std::string stepName(const StepSummary &step)
{
    return step.iteration ? "iteration " + std::to_string(*step.iteration) : "step " + std::to_string(step.index);
}

std::vector<StepSummary> findSteps(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases, bool truncated)
{
    const std::vector<Span> spans = stepSpans(phases, index, snapshot.gaps, truncated);
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
    return steps;
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
        const int step = stepOfEvent(steps, a.allocEvent);
        if (step < 0)
            continue;
        const AllocationDetail d = index.detail(id);
        LeakSuspect &s = byStack[d.stack];
        if (s.perStepBytes.empty()) {
            s.stack = d.stack;
            s.perStepBytes.assign(steps.size(), 0);
        }
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

std::string whyNoLeakSuspects(const std::vector<PhaseRange> &phases, const std::vector<StepSummary> &steps, size_t suspects)
{
    if (suspects > 0)
        return {};
    if (phases.empty())
        return "no record_function phases to tell training steps by";
    if (steps.empty()) {
        const bool profilerSteps = std::any_of(phases.begin(), phases.end(), [](const PhaseRange &p) { return p.name.starts_with("ProfilerStep"); });
        if (!profilerSteps && optimizerSteps(phases).empty())
            return "no training steps: the trace holds no optimizer step (torch.optim's Optimizer.step#…) or ProfilerStep to tell "
                   "a step from per-layer marks";
        return "fewer than two whole training steps (a ProfilerStep, or a cycle with one optimizer step)";
    }
    if (const size_t whole = wholeStepCount(steps); whole < kLeakSuspectSteps)
        return std::to_string(whole) + " whole steps; telling growth from a step's own memory takes " + std::to_string(kLeakSuspectSteps);
    return "nothing allocated in one step was still alive at the end and grew in the steps after it";
}

} // namespace memlens
