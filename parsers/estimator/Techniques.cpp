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
    Technique{"checkpointing", [](const EstimateInput &in) { return in.checkpointing != Checkpointing::Full && !in.model.isImage(); },
              [](EstimateInput &in) { in.checkpointing = Checkpointing::Full; }},
    Technique{"amp-bf16", [](const EstimateInput &in) { return in.precision == Precision::Fp32; },
              [](EstimateInput &in) { in.precision = Precision::AmpBf16; }},
    Technique{"bf16", [](const EstimateInput &in) { return in.precision != Precision::Bf16; },
              [](EstimateInput &in) { in.precision = Precision::Bf16; }},
    Technique{"adamw8bit", [](const EstimateInput &in) { return in.optimizer == Optimizer::AdamW; },
              [](EstimateInput &in) { in.optimizer = Optimizer::AdamW8bit; }},
    Technique{"adafactor", [](const EstimateInput &in) { return in.optimizer == Optimizer::AdamW && !in.inference; },
              [](EstimateInput &in) { in.optimizer = Optimizer::Adafactor; }},
    Technique{"lora", [](const EstimateInput &in) { return !usesLora(in) && !in.model.isImage(); },
              [](EstimateInput &in) { in.loraRank = 16; }},
    Technique{"qlora", [](const EstimateInput &in) { return !in.qlora && !in.model.isImage(); },
              [](EstimateInput &in) {
                  in.qlora = true;
                  in.loraRank = in.loraRank > 0 ? in.loraRank : 16;
              }},
    Technique{"offload-optimizer", [](const EstimateInput &in) { return !in.offloadOptimizer && in.optimizer != Optimizer::None && !in.inference; },
              [](EstimateInput &in) { in.offloadOptimizer = true; }},
    Technique{"half-batch", [](const EstimateInput &in) { return in.batch > 1; },
              [](EstimateInput &in) {
                  in.batch = std::max(1, in.batch / 2);
                  in.gradAccumulation *= 2;
              }},
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
