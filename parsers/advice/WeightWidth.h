#pragma once
// Bytes per weight from the parameter tensors' own sizes, without a preset: a network's 1-D
// tensors (norm weights, biases) hold `hidden` values and its square matrices (attention
// projections) hidden², so a vector of s bytes and a matrix of s² ÷ b bytes mean b bytes per
// value. Only a clear answer counts: convolution nets can match at both widths by accident.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct WeightWidth {
    int bytes = 4;       // 2 (bf16 / fp16) or 4 (fp32)
    uint64_t hidden = 0; // values per vector
    size_t matrices = 0; // square matrices found at that width
    std::string how;
};

// `sizes`: the requested bytes of every parameter allocation.
std::optional<WeightWidth> weightWidthFromShapes(const std::vector<uint64_t> &sizes);

} // namespace memlens
