#pragma once
// The estimator input an inferred setup makes: its shape, dtype policy, optimizer, sharding,
// checkpointing, LoRA rank and the batch and sequence its tokens divide into. What the advice and
// the estimator panel start from.
#include "advice/SetupInference.h"
#include "estimator/EstimatorPresets.h"

namespace memlens {

// `shape`: the preset or the shape as inferred (null: none); `bytesPerParam` of the weights.
void makeEstimateInput(InferredSetup &out, const ModelShape *shape, double params, double bytesPerParam);

} // namespace memlens
