#include "index/Phases.h"

#include <algorithm>
#include <map>

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

} // namespace memlens
