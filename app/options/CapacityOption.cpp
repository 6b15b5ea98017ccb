#include "options/CapacityOption.h"

#include "estimator/EstimatorPresets.h"

namespace memlens {

CapacityOption resolveCapacity(const std::optional<std::string> &gpu, const std::optional<int64_t> &capacity, std::string_view dashes)
{
    const std::string gpuName = std::string(dashes) + "gpu", capacityName = std::string(dashes) + "capacity";
    if (gpu && capacity)
        throw CapacityArgumentError("gpu", "give " + gpuName + " or " + capacityName + ", not both");
    if (gpu) {
        const auto preset = findGpu(*gpu);
        if (!preset)
            throw CapacityArgumentError("gpu", "unknown " + gpuName + " " + *gpu + " (see memlens estimate's presets)");
        return {preset->bytes, "--gpu " + *gpu, preset->bytes};
    }
    if (capacity) {
        if (*capacity <= 0)
            throw CapacityArgumentError("capacity", capacityName + " takes a positive number of bytes");
        return {static_cast<uint64_t>(*capacity), "--capacity", std::nullopt};
    }
    return {};
}

CapacityOption capacityOption(const CommandLine &cl)
{
    return resolveCapacity(cl.value("gpu"), cl.integer("capacity"), "--");
}

} // namespace memlens
