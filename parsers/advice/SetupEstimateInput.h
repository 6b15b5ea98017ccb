#pragma once
// The estimator input an inferred setup makes: its shape, dtype policy, optimizer, sharding,
// checkpointing, LoRA rank and the batch and sequence its tokens divide into. What the advice and
// the estimator panel start from.
#include "advice/SetupInference.h"
#include "estimator/EstimatorPresets.h"

namespace memlens {

// `shape`: the preset or the shape as inferred (null: none); `bytesPerParam` of the weights;
// `paramSizes`: every parameter tensor's bytes; `trainedSizes`: distinct byte sizes of the
// trained tensors' optimizer state (or gradients).
void makeEstimateInput(InferredSetup &out, const ModelShape *shape, double params, double bytesPerParam, const std::vector<uint64_t> &paramSizes,
                       const std::vector<uint64_t> &trainedSizes);

// LoRA's rank and targets from the adapters' fp32 tensors (lora_A r × d_in, lora_B d_out × r):
// the largest r for which every trained tensor is r × a width of the model's Linear layers (the
// hidden size, or the other side of a weight that has it), and the targets the trainable count
// per layer at that rank says (q and v, q k v o, or all-linear); nothing when they say neither.
struct LoraShape {
    int rank = 0;
    LoraTargets targets = LoraTargets::Attention;
};
std::optional<LoraShape> loraShapeOf(int hidden, int layers, const std::vector<uint64_t> &paramSizes, double bytesPerParam,
                                     const std::vector<uint64_t> &trainedSizes, uint64_t trainable);

} // namespace memlens
