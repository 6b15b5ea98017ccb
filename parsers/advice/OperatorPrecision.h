#pragma once
// What a profiler trace's recorded input types say of the precision (OperatorDtypes): products
// called on fp32 inputs that run on 16-bit ones inside are autocast's casts; products called on
// 16-bit inputs are a model cast to 16 bits. Operator names and dtypes are torch's own words,
// never a user's.
#include "model/Snapshot.h"

#include <optional>
#include <string>

namespace memlens {

struct OperatorPrecision {
    bool autocast = false;
    int weightBytes = 4; // 2: a model cast to 16 bits
    bool fp16 = false;   // the 16-bit products took c10::Half, not c10::BFloat16
    std::string how;
};

// Empty when the trace recorded no input types, or they say neither clearly.
std::optional<OperatorPrecision> precisionFromOperators(const OperatorDtypes &ops);

} // namespace memlens
