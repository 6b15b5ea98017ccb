#pragma once
// The estimator's shape for a model no preset matches.
#include "advice/WeightWidth.h"
#include "estimator/EstimatorPresets.h"

#include <cstdint>
#include <optional>

namespace memlens {

// A shape with the snapshot's own figures on the family's closest preset: the measured hidden
// size (heads and MLP width scaled with it), the vocabulary from the largest weight
// (`largestWeightBytes`: the embedding or the output layer, vocab × hidden), then the layer count
// and the MLP width that give the inferred parameter count. The template's own depth and width
// are another model's: kept, they made a 1.2 B-parameter run a 340 M-parameter shape and the
// estimate look 117 % off.
ModelShape shapeAsInferred(const ModelShape &family, double params, uint64_t largestWeightBytes, const std::optional<WeightWidth> &width);

} // namespace memlens
