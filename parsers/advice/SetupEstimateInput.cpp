#include "advice/SetupEstimateInput.h"

#include <algorithm>
#include <cmath>

namespace memlens {

std::optional<LoraShape> loraShapeOf(int hidden, int layers, const std::vector<uint64_t> &paramSizes, double bytesPerParam,
                                     const std::vector<uint64_t> &trainedSizes, uint64_t trainable)
{
    if (hidden <= 0 || layers <= 0 || trainable == 0 || bytesPerParam <= 0)
        return std::nullopt;
    const auto h = static_cast<uint64_t>(hidden);
    // The widths a Linear of the model has: the hidden size, and the other side of every weight
    // that has the hidden size on one (q, k, v, o, the MLP's), the adapters' own left out.
    std::vector<uint64_t> widths = {h};
    for (uint64_t bytes : paramSizes) {
        const auto elements = static_cast<uint64_t>(double(bytes) / bytesPerParam);
        if (std::find(trainedSizes.begin(), trainedSizes.end(), bytes) == trainedSizes.end() && elements % h == 0 && elements / h >= 64)
            widths.push_back(elements / h);
    }
    auto isWidth = [&](uint64_t w) { return std::find(widths.begin(), widths.end(), w) != widths.end(); };
    std::vector<uint64_t> counts; // fp32 elements; a fused optimizer's scalar step counters left out
    for (uint64_t bytes : trainedSizes) {
        if (bytes % 4 == 0 && bytes / 4 >= 64)
            counts.push_back(bytes / 4);
    }
    uint64_t best = 0;
    for (uint64_t c : counts) {
        for (uint64_t w : widths) {
            const uint64_t r = c % w ? 0 : c / w;
            if (r > best && r <= h / 8 && std::all_of(counts.begin(), counts.end(), [&](uint64_t n) { return n % r == 0 && isWidth(n / r); }))
                best = r;
        }
    }
    if (!best)
        return std::nullopt;
    // Σ (d_in + d_out) per layer against the hidden size: q and v 3h + kv (3–4 h); q, k, v, o
    // 6h + 2 kv (6–8 h); all-linear adds the MLP's 3 (h + I).
    const double perLayer = double(trainable) / double(best * uint64_t(layers)) / double(h);
    const std::optional<LoraTargets> targets = perLayer > 2.9 && perLayer <= 4.1   ? std::optional(LoraTargets::QueryValue)
                                               : perLayer > 5.9 && perLayer <= 8.1 ? std::optional(LoraTargets::Attention)
                                               : perLayer > 8.9                    ? std::optional(LoraTargets::AllLinear)
                                                                                   : std::nullopt;
    if (!targets)
        return std::nullopt;
    return LoraShape{int(best), *targets};
}

void makeEstimateInput(InferredSetup &out, const ModelShape *shape, double params, double bytesPerParam, const std::vector<uint64_t> &paramSizes,
                       const std::vector<uint64_t> &trainedSizes)
{
    const std::optional<Optimizer> opt = out.optimizer.value;
    EstimateInput &in = out.input;
    if (shape) {
        in.model = *shape;
        out.hasShape = true;
    }
    in.precision = *out.autocast.value ? (out.fp16 ? Precision::Fp16Amp : Precision::AmpBf16) : bytesPerParam == 2 ? Precision::Bf16 : Precision::Fp32;
    in.optimizer = opt.value_or(Optimizer::AdamW); // an unknown layout is priced as the common case
    in.inference = opt == Optimizer::None;
    in.zeroStage = out.parallelism.value->shardingStage;
    in.gpus = out.gpus.value.value_or(1);
    in.checkpointing = out.checkpointing.value.value_or(false) ? Checkpointing::Full : Checkpointing::None;
    if (out.trainableParams.value && params > 0 && double(*out.trainableParams.value) < 0.5 * params) {
        // LoRA on the attention projections: r · (d_in + d_out) per adapted matrix.
        in.loraRank = 16;
        const auto lora = shape && !shape->isImage()
                              ? loraShapeOf(shape->hidden, shape->layers, paramSizes, bytesPerParam, trainedSizes, *out.trainableParams.value)
                              : std::nullopt;
        if (lora) {
            in.loraRank = lora->rank;
            in.loraTargets = lora->targets;
        } else if (shape && !shape->isImage()) {
            const double perRank = loraWidthPerRank(*shape, LoraTargets::Attention) * shape->layers;
            in.loraRank = std::max(1, static_cast<int>(std::lround(double(*out.trainableParams.value) / perRank)));
        }
    }
    if (shape && shape->isImage()) {
        in.seq = shape->imageSize;
        in.batch = static_cast<int>(out.batch.value.value_or(1));
    } else if (out.tokens.value) {
        const int positions = shape && shape->positions ? shape->positions : 2048;
        const uint64_t t = *out.tokens.value;
        in.seq = static_cast<int>(std::min<uint64_t>(t, uint64_t(positions)));
        while (in.seq > 1 && t % uint64_t(in.seq))
            --in.seq;
        in.batch = static_cast<int>(t / uint64_t(in.seq));
    }
}

} // namespace memlens
