#include "advice/OperatorPrecision.h"

namespace memlens {

std::optional<OperatorPrecision> precisionFromOperators(const OperatorDtypes &ops)
{
    const uint64_t total = ops.total(), half = ops.bf16 + ops.fp16;
    if (total == 0)
        return std::nullopt;
    OperatorPrecision p;
    p.fp16 = ops.fp16 > ops.bf16;
    const std::string halfName = p.fp16 ? "c10::Half" : "c10::BFloat16";
    const std::string source = " (the trace's recorded input types)";
    // Backward's products run on 16-bit inputs under autocast too, so the casts are counted
    // against the products called on fp32, not against all of them.
    if (ops.cast > 0 && ops.cast * 2 >= ops.fp32) {
        p.autocast = true;
        p.how = std::to_string(ops.cast) + " of " + std::to_string(ops.fp32) + " matrix products called on float inputs ran on " + halfName +
                " inside: autocast's casts" + source;
        return p;
    }
    if (ops.cast == 0 && half * 10 >= total * 9) {
        p.weightBytes = 2;
        p.how = std::to_string(half) + " of " + std::to_string(total) + " matrix products took " + halfName + " inputs, none was cast: a model cast to 16 bits" + source;
        return p;
    }
    if (ops.cast == 0 && ops.fp32 * 10 >= total * 9) {
        p.fp16 = false;
        p.how = std::to_string(ops.fp32) + " of " + std::to_string(total) + " matrix products took float inputs" + source;
        return p;
    }
    return std::nullopt;
}

} // namespace memlens
