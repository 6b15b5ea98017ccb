#include "analysis/Steps.h"

#include "analysis/AllocatorState.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace memlens {

namespace {

// "ProfilerStep#12" and "ProfilerStep#13", or a script's own "step0" and "step1", repeat one
// pattern: a trailing iteration number (after '#', '_', ' ' or nothing) is not part of it.
std::string_view patternName(std::string_view name)
{
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
};

// [start, end) of each step in time.
std::vector<Span> stepSpans(const std::vector<PhaseRange> &phases)
{
    std::vector<const PhaseRange *> started;
    for (const PhaseRange &p : phases) {
        if (p.startUs)
            started.push_back(&p);
    }
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
    std::vector<Span> spans;
    if (top.empty())
        return spans;
    const std::string_view pattern = patternName(top.front()->name);
    int64_t lastEnd = INT64_MIN;
    for (const PhaseRange *p : top) {
        if (patternName(p->name) == pattern) {
            if (!spans.empty())
                spans.back().end = *p->startUs;
            spans.push_back({*p->startUs, INT64_MAX});
        }
        lastEnd = std::max(lastEnd, p->endUs.value_or(INT64_MAX));
    }
    if (spans.size() < 2 && !std::string_view(top.front()->name).starts_with("ProfilerStep"))
        return {}; // one occurrence is no repetition
    spans.back().end = lastEnd == INT64_MAX ? INT64_MAX : lastEnd + 1;
    return spans;
}

} // namespace

std::vector<StepSummary> findSteps(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases)
{
    const std::vector<Span> spans = stepSpans(phases);
    const EventTable &ev = index.events();
    const auto reserved = index.reservedChanges();
    std::vector<StepSummary> steps;
    size_t change = 0;
    uint64_t reservedNow = index.startReservedBytes();
    // Allocated bytes as the allocator counts them, in block sizes.
    const BlockSizes blockSizes(snapshot, index);
    auto blockBytes = [&](uint32_t allocation) { return blockSizes.of(allocation); };
    uint64_t allocated = 0;
    for (uint32_t id : index.liveAt(kBeforeTrace))
        allocated += blockBytes(id);
    size_t s = 0;
    for (uint32_t e = 0; e < ev.count() && s < spans.size(); ++e) {
        while (change < reserved.size() && reserved[change].first <= e)
            reservedNow = reserved[change++].second;
        if (ev.action[e] == Action::Alloc) {
            for (const auto &[event, ended] : index.endedBy(e))
                allocated -= blockBytes(ended);
            allocated += blockBytes(index.ownerOfEvent(e));
        } else if (ev.action[e] == Action::FreeCompleted && index.ownerOfEvent(e) != UINT32_MAX) {
            allocated -= blockBytes(index.ownerOfEvent(e));
        }
        const int64_t t = ev.timeUs[e];
        while (s < spans.size() && t >= spans[s].end)
            ++s;
        if (s >= spans.size() || t < spans[s].start)
            continue;
        if (steps.empty() || steps.back().index != s) {
            StepSummary step;
            step.index = static_cast<uint32_t>(s);
            step.firstEvent = e;
            step.startUs = spans[s].start;
            step.endUs = spans[s].end == INT64_MAX ? ev.timeUs[ev.count() - 1] : spans[s].end;
            step.peakEvent = e;
            steps.push_back(step);
        }
        StepSummary &step = steps.back();
        step.lastEvent = e;
        const uint64_t active = index.activeAfter(e);
        if (active > step.peakActiveBytes) {
            step.peakActiveBytes = active;
            step.peakEvent = e;
        }
        step.endActiveBytes = active;
        step.endAllocatedBytes = allocated;
        step.peakReservedBytes = std::max(step.peakReservedBytes, reservedNow);
    }
    // Steps with no event of their own (possible in a cut trace) are not reported.
    for (uint32_t i = 0; i < steps.size(); ++i)
        steps[i].index = i;
    return steps;
}

const StepSummary &highestStep(const std::vector<StepSummary> &steps)
{
    return *std::max_element(steps.begin(), steps.end(), [](const StepSummary &a, const StepSummary &b) { return a.peakActiveBytes < b.peakActiveBytes; });
}

int stepOfEvent(const std::vector<StepSummary> &steps, uint32_t event)
{
    auto it = std::upper_bound(steps.begin(), steps.end(), event, [](uint32_t e, const StepSummary &s) { return e < s.firstEvent; });
    if (it == steps.begin())
        return -1;
    --it;
    return event <= it->lastEvent ? static_cast<int>(it - steps.begin()) : -1;
}

std::vector<LeakSuspect> findLeakSuspects(const DeviceIndex &index, const std::vector<StepSummary> &steps)
{
    std::vector<LeakSuspect> suspects;
    if (steps.size() < 2)
        return suspects;
    std::map<uint32_t, LeakSuspect> byStack;
    for (uint32_t id = 0; id < index.allocationCount(); ++id) {
        const Allocation &a = index.allocation(id);
        if (a.allocEvent == kBeforeTrace || a.freeCompleted != kNever)
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

} // namespace memlens
