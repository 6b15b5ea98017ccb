#include "decode/trace/ProfilerPhases.h"

#include <algorithm>

namespace memlens {

namespace {
void sortByStart(std::vector<TimedRange> &ranges)
{
    std::sort(ranges.begin(), ranges.end(), [](const TimedRange &a, const TimedRange &b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
}
} // namespace

std::vector<InferredPhase> inferPhases(OperatorRanges r)
{
    for (auto *list : {&r.modules, &r.autograd, &r.optimizer, &r.steps})
        sortByStart(*list);
    std::vector<InferredPhase> out;
    // Forward: module calls not inside another (the model's, the loss's), in order.
    std::vector<TimedRange> forward;
    for (const TimedRange &m : r.modules) {
        if (!forward.empty() && m.start < forward.back().end)
            continue; // a submodule
        forward.push_back(m);
    }
    std::vector<double> boundaries;
    for (const auto *list : {&forward, &r.optimizer, &r.steps})
        for (const TimedRange &x : *list)
            boundaries.push_back(x.start);
    std::sort(boundaries.begin(), boundaries.end());
    auto boundaryBetween = [&](double a, double b) {
        auto it = std::lower_bound(boundaries.begin(), boundaries.end(), a);
        return it != boundaries.end() && *it <= b;
    };
    std::vector<TimedRange> backward;
    for (const TimedRange &op : r.autograd) {
        if (!backward.empty() && !boundaryBetween(backward.back().end, op.start)) {
            backward.back().end = std::max(backward.back().end, op.end);
            continue;
        }
        backward.push_back(op);
    }
    if (forward.empty()) {
        // No module calls recorded: a step's forward is what precedes its first backward.
        for (const TimedRange &step : r.steps) {
            auto first = std::find_if(backward.begin(), backward.end(),
                                      [&](const TimedRange &b) { return b.start >= step.start && b.start <= step.end; });
            if (first != backward.end() && first->start > step.start)
                forward.push_back({step.start, first->start});
        }
    }
    for (const TimedRange &f : forward)
        out.push_back({"forward", f});
    for (const TimedRange &b : backward)
        out.push_back({"backward", b});
    std::stable_sort(out.begin(), out.end(), [](const InferredPhase &a, const InferredPhase &b) { return a.range.start < b.range.start; });
    return out;
}

} // namespace memlens
