#include "advice/SetupEstimateInput.h"

#include <algorithm>
#include <cmath>

namespace memlens {

void makeEstimateInput(InferredSetup &out, const ModelShape *shape, double params, double bytesPerParam)
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
        if (shape && !shape->isImage()) {
            const double h = shape->hidden, q = double(shape->heads) * shape->dHead(), kvd = double(shape->kvHeads) * shape->dHead();
            const double perRank = ((h + q) + 2 * (h + kvd) + (q + h)) * shape->layers;
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
