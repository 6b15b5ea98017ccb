#include "advice/InferredShape.h"

#include <algorithm>
#include <cmath>

namespace memlens {

ModelShape shapeAsInferred(const ModelShape &family, double params, uint64_t largestWeightBytes, const std::optional<WeightWidth> &width)
{
    ModelShape shape = family;
    if (width) {
        shape.hidden = static_cast<int>(width->hidden);
        const int dHead = family.dHead();
        if (dHead > 0 && shape.hidden % dHead == 0) {
            shape.heads = shape.hidden / dHead;
            shape.headDim = family.headDim;
            shape.kvHeads = family.kvHeads ? std::max(1, shape.heads * family.kvHeads / family.heads) : 0;
        }
        shape.intermediate = static_cast<int>(std::llround(double(family.intermediate) * shape.hidden / family.hidden / 8.0) * 8);
        const uint64_t largest = largestWeightBytes;
        const uint64_t row = width->hidden * uint64_t(width->bytes);
        if (largest && largest % row == 0 && largest / row > width->hidden && largest / row < (1u << 20))
            shape.vocab = static_cast<int>(largest / row);
    }
    const auto miss = [&](const ModelShape &s) { return std::abs(double(parameterCount(s)) - params); };
    ModelShape best = shape;
    double bestMiss = miss(best);
    for (int layers = 1; layers <= 512; ++layers) {
        shape.layers = layers;
        if (const double here = miss(shape); here < bestMiss) {
            best = shape;
            bestMiss = here;
        }
    }
    // What the layer count leaves, the MLP width takes (parameters grow linearly with it).
    const double base = double(parameterCount(best));
    ModelShape wider = best;
    wider.intermediate += 64;
    const double perUnit = (double(parameterCount(wider)) - base) / 64;
    if (perUnit > 0)
        best.intermediate = std::max(64, static_cast<int>(std::llround((best.intermediate + (params - base) / perUnit) / 8) * 8));
    best.name = "as inferred (" + std::to_string(best.layers) + " layers, hidden " + std::to_string(best.hidden) + ", MLP " +
                std::to_string(best.intermediate) + ", vocabulary " + std::to_string(best.vocab) + ")";
    return best;
}

} // namespace memlens
