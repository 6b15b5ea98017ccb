#include "estimator/Techniques.h"

#include <algorithm>
#include <array>

namespace memlens {

namespace {
bool usesLora(const EstimateInput &in)
{
    return in.loraRank > 0 || in.qlora;
}

constexpr std::array kTechniques{
    Technique{"checkpointing",
              "activation checkpointing keeps each layer's input and recomputes the rest in backward",
              [](const EstimateInput &in) { return in.checkpointing != Checkpointing::Full && !in.model.isImage(); },
              [](EstimateInput &in) {
                  in.checkpointing = Checkpointing::Full;
                  in.checkpointEvery = 0;
              },
              false, Effort::Loop},
    Technique{"amp-bf16",
              "autocast to bf16 halves matmul outputs; fp32 weights stay, with bf16 copies during the step",
              [](const EstimateInput &in) { return in.precision == Precision::Fp32; },
              [](EstimateInput &in) { in.precision = Precision::AmpBf16; }, false, Effort::Numerics},
    Technique{"bf16",
              "bf16 weights halve parameters, gradients, optimizer state and activations",
              [](const EstimateInput &in) { return in.precision != Precision::Bf16; },
              [](EstimateInput &in) { in.precision = Precision::Bf16; }, false, Effort::Numerics},
    Technique{"adamw8bit",
              "8-bit AdamW (bitsandbytes) stores both moments in about 2 bytes per parameter",
              [](const EstimateInput &in) { return in.optimizer == Optimizer::AdamW; },
              [](EstimateInput &in) { in.optimizer = Optimizer::AdamW8bit; }, false, Effort::Numerics},
    Technique{"adafactor",
              "Adafactor keeps factored second moments: rows plus columns per matrix",
              [](const EstimateInput &in) { return in.optimizer == Optimizer::AdamW && !in.inference; },
              [](EstimateInput &in) { in.optimizer = Optimizer::Adafactor; }, false, Effort::Numerics},
    Technique{"lora",
              "LoRA (r 16) freezes the base model: no gradients or optimizer state for it",
              [](const EstimateInput &in) { return !usesLora(in) && !in.model.isImage(); },
              [](EstimateInput &in) { in.loraRank = 16; }, false, Effort::Numerics},
    Technique{"qlora",
              "QLoRA stores the frozen base's Linear weights in 4-bit NF4 and trains LoRA adapters",
              [](const EstimateInput &in) { return !in.qlora && !in.model.isImage(); },
              [](EstimateInput &in) {
                  in.qlora = true;
                  in.loraRank = in.loraRank > 0 ? in.loraRank : 16;
              }, false, Effort::Numerics},
    Technique{"offload-optimizer",
              "optimizer state in CPU memory (DeepSpeed / FSDP offload)",
              [](const EstimateInput &in) { return !in.offloadOptimizer && in.optimizer != Optimizer::None && !in.inference; },
              [](EstimateInput &in) { in.offloadOptimizer = true; }, false, Effort::Hardware},
    Technique{"half-batch",
              "half the micro-batch with twice the gradient accumulation: half the activations, gradients kept between micro-batches",
              [](const EstimateInput &in) { return in.batch > 1; },
              [](EstimateInput &in) {
                  in.batch = std::max(1, in.batch / 2);
                  in.gradAccumulation *= 2;
              }, false, Effort::Loop},
    Technique{"zero-1", "ZeRO-1 shards optimizer state over the GPUs", [](const EstimateInput &in) { return in.zeroStage < 1; },
              [](EstimateInput &in) { in.zeroStage = 1; }, true, Effort::Hardware},
    Technique{"zero-2", "ZeRO-2 shards optimizer state and gradients over the GPUs", [](const EstimateInput &in) { return in.zeroStage < 2; },
              [](EstimateInput &in) { in.zeroStage = 2; }, true, Effort::Hardware},
    Technique{"fsdp", "FSDP full sharding (ZeRO-3) shards parameters, gradients and optimizer state over the GPUs",
              [](const EstimateInput &in) { return in.zeroStage < 3; }, [](EstimateInput &in) { in.zeroStage = 3; }, true, Effort::Hardware},
};
} // namespace

std::span<const Technique> techniques()
{
    return kTechniques;
}

const Technique *findTechnique(std::string_view name)
{
    for (const Technique &t : kTechniques) {
        if (t.name == name)
            return &t;
    }
    return nullptr;
}

} // namespace memlens
