#include "index/Phases.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <queue>

namespace memlens {

std::vector<PhaseRange> phaseRanges(const Snapshot &snapshot, int device)
{
    std::vector<const PhaseMark *> marks;
    for (const PhaseMark &m : snapshot.phaseMarks) {
        if (m.device == device)
            marks.push_back(&m);
    }
    std::stable_sort(marks.begin(), marks.end(), [](auto *a, auto *b) { return a->timeUs < b->timeUs; });
    std::vector<PhaseRange> ranges;
    std::map<StringId, std::vector<size_t>> open; // name → indices of ranges still open
    for (const PhaseMark *m : marks) {
        if (m->start) {
            open[m->name].push_back(ranges.size());
            ranges.push_back({std::string(snapshot.strings.at(m->name)), m->timeUs, std::nullopt});
        } else if (auto &stack = open[m->name]; !stack.empty()) {
            ranges[stack.back()].endUs = m->timeUs;
            stack.pop_back();
        } else {
            ranges.push_back({std::string(snapshot.strings.at(m->name)), std::nullopt, m->timeUs});
        }
    }
    return ranges;
}

const PhaseRange *innermostPhaseAt(const std::vector<PhaseRange> &ranges, int64_t timeUs)
{
    const PhaseRange *best = nullptr;
    for (const PhaseRange &p : ranges) {
        if (p.startUs && *p.startUs <= timeUs && (!p.endUs || timeUs <= *p.endUs) && (!best || *p.startUs >= *best->startUs))
            best = &p;
    }
    return best;
}

Phases::Phases(const Snapshot &snapshot, int device) : ranges_(phaseRanges(snapshot, device))
{
    for (const PhaseRange &p : ranges_) {
        const StepPart kind = stepPartOfName(p.name);
        if (kind != StepPart::None && p.startUs)
            spans_.push_back({*p.startUs, p.endUs.value_or(INT64_MAX), kind});
    }
}

std::vector<int32_t> Phases::classifyEvents(const EventTable &events, std::span<const uint32_t> which) const
{
    return classify(events, which.size(), [which](size_t i) { return which[i]; });
}

template <typename EventAt>
std::vector<int32_t> Phases::classify(const EventTable &events, size_t n, EventAt eventAt) const
{
    std::vector<int32_t> out(spans_.empty() ? 0 : n, kNoSpan);
    if (spans_.empty())
        return out;
    // Events in time order (traces almost always are already), spans in start order; a heap
    // of the spans started so far, latest start on top (the later span on a tie), drops the
    // ones that ended before the current time.
    auto timeOf = [&](size_t i) { return events.timeUs[eventAt(i)]; };
    std::vector<uint32_t> byStart(spans_.size());
    std::iota(byStart.begin(), byStart.end(), 0u);
    std::stable_sort(byStart.begin(), byStart.end(), [&](uint32_t a, uint32_t b) { return spans_[a].start < spans_[b].start; });
    auto later = [&](uint32_t a, uint32_t b) { return std::pair(spans_[a].start, a) < std::pair(spans_[b].start, b); };
    std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(later)> started(later);
    size_t next = 0;
    auto visit = [&](size_t i) {
        const int64_t t = timeOf(i);
        while (next < byStart.size() && spans_[byStart[next]].start <= t)
            started.push(byStart[next++]);
        while (!started.empty() && spans_[started.top()].end < t)
            started.pop();
        if (!started.empty())
            out[i] = static_cast<int32_t>(started.top());
    };
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i)
        sorted = timeOf(i - 1) <= timeOf(i);
    if (sorted) { // traces almost always are: no permutation to build
        for (size_t i = 0; i < n; ++i)
            visit(i);
        return out;
    }
    std::vector<uint32_t> byTime(n);
    std::iota(byTime.begin(), byTime.end(), 0u);
    std::stable_sort(byTime.begin(), byTime.end(), [&](uint32_t a, uint32_t b) { return timeOf(a) < timeOf(b); });
    for (uint32_t i : byTime)
        visit(i);
    return out;
}

} // namespace memlens
