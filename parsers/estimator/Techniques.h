#pragma once
// The one table of memory-saving techniques the estimator knows: which apply to a setup
// (not yet in use, and meaningful for it) and how each changes the setup. The estimate's
// savings, the estimator panel's "click to apply" and the CLI all go through it.
#include "estimator/MemoryEstimator.h"

#include <span>
#include <string_view>

namespace memlens {

struct Technique {
    std::string_view name; // "checkpointing", "amp-bf16", "bf16", "adamw8bit", "adafactor", "lora", "qlora", …
    std::string_view reason; // what it changes, in a sentence
    bool (*applies)(const EstimateInput &in);
    void (*apply)(EstimateInput &in);
    // Sharding over several GPUs (ZeRO, FSDP): applies only with a GPU count to shard over, which
    // the caller sets (EstimateInput::gpus); a single-GPU estimate has none.
    bool shards = false;
};

std::span<const Technique> techniques();
const Technique *findTechnique(std::string_view name);

} // namespace memlens
