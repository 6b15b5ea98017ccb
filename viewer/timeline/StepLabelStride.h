#pragma once
// Which steps get their number in the timeline's step strip when the numbers are wider than the
// steps: every k-th, k from 1, 2, 5, 10, 20, 50, … so that each label has room, and a run of
// narrow steps still shows where it is (every step unlabelled was the old answer at ~22 px).
#include <cstdint>

namespace memlens {

// `perStep`: pixels per step; `labelWidth`: pixels the widest number needs with its margin.
inline int64_t stepLabelStride(double perStep, double labelWidth)
{
    if (perStep <= 0)
        return 0;
    for (int64_t k = 1; k < (int64_t(1) << 40); k *= 10) {
        for (int64_t m : {1, 2, 5}) {
            if (double(k * m) * perStep >= labelWidth)
                return k * m;
        }
    }
    return 0;
}

} // namespace memlens
