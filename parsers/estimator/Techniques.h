#pragma once
// The one table of memory-saving techniques the estimator knows: which apply to a setup
// (not yet in use, and meaningful for it) and how each changes the setup. The estimate's
// savings, the estimator panel's "click to apply" and the CLI all go through it.
#include "model/EnumNames.h"
#include "estimator/MemoryEstimator.h"

#include <span>
#include <string_view>

namespace memlens {

// How much a fix asks of the user, least first: a setting or environment variable, the training
// loop (batch, accumulation, checkpointing, the loss or attention kernel), the numerics (dtype,
// optimizer, quantisation, adapters), or more hardware (sharding over GPUs, offload).
enum class Effort : uint8_t { Config, Loop, Numerics, Hardware };
constexpr EnumNames<Effort, 4> kEffortNames{
    {{{Effort::Config, "config"}, {Effort::Loop, "loop"}, {Effort::Numerics, "numerics"}, {Effort::Hardware, "hardware"}}}};

struct Technique {
    std::string_view name; // "checkpointing", "amp-bf16", "bf16", "adamw8bit", "adafactor", "lora", "qlora", …
    std::string_view reason; // what it changes, in a sentence
    bool (*applies)(const EstimateInput &in);
    void (*apply)(EstimateInput &in);
    // Sharding over several GPUs (ZeRO, FSDP): applies only with a GPU count to shard over, which
    // the caller sets (EstimateInput::gpus); a single-GPU estimate has none.
    bool shards = false;
    Effort effort = Effort::Numerics;
};

std::span<const Technique> techniques();
const Technique *findTechnique(std::string_view name);

} // namespace memlens
