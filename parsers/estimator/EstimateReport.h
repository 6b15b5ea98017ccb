#pragma once
// `memlens estimate` output: the stable JSON object (keys in README.md) and readable text.
#include "estimator/MemoryEstimator.h"

#include <optional>
#include <string>

namespace memlens {

struct FitAnswer {
    std::string what; // "batch" or "seq"
    int value = 0;    // 0: not even 1 fits
};

std::string estimateJson(const EstimateInput &in, const EstimateResult &r, const std::optional<FitAnswer> &fit);
std::string estimateText(const EstimateInput &in, const EstimateResult &r, const std::optional<FitAnswer> &fit);

} // namespace memlens
