#pragma once
// Where the timeline's private-pool labels go: each at the top of its pool's region, unless the
// one above it would be overwritten; then just below that one (two pools reserving about the
// same drew their labels over each other).
#include <algorithm>
#include <numeric>
#include <vector>

namespace memlens {

// `tops`: each label's wanted top, in pixels (down is larger); `height`: a label's height.
// The tops to draw them at, in the same order.
inline std::vector<double> stackedLabelTops(const std::vector<double> &tops, double height)
{
    std::vector<size_t> order(tops.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tops[a] < tops[b]; });
    std::vector<double> out(tops.size());
    double free = -1e300;
    for (size_t i : order) {
        out[i] = std::max(tops[i], free);
        free = out[i] + height;
    }
    return out;
}

} // namespace memlens
