#include "questions/CapacityRequest.h"

#include "estimator/EstimatorPresets.h"
#include "questions/QuestionError.h"

namespace memlens {

CapacityRequest resolveCapacity(const std::optional<std::string> &gpu, const std::optional<int64_t> &capacity, std::string_view dashes)
{
    const std::string gpuName = std::string(dashes) + "gpu", capacityName = std::string(dashes) + "capacity";
    if (gpu && capacity)
        throw QuestionError("gpu", "give " + gpuName + " or " + capacityName + ", not both");
    if (gpu) {
        const auto preset = findGpu(*gpu);
        if (!preset)
            throw QuestionError("gpu", "unknown " + gpuName + " " + *gpu + " (see memlens estimate's presets)");
        return {preset->bytes, "--gpu " + *gpu, preset->bytes};
    }
    if (capacity) {
        if (*capacity <= 0)
            throw QuestionError("capacity", capacityName + " takes a positive number of bytes");
        return {static_cast<uint64_t>(*capacity), "--capacity", std::nullopt};
    }
    return {};
}

} // namespace memlens
