#include "CapacityOption.h"

#include "estimator/EstimatorPresets.h"

#include <stdexcept>

namespace memlens {

CapacityOption capacityOption(const CommandLine &cl)
{
    if (cl.value("gpu") && cl.value("capacity"))
        throw std::invalid_argument("give --gpu or --capacity, not both");
    if (auto gpu = cl.value("gpu")) {
        const auto preset = findGpu(*gpu);
        if (!preset)
            throw std::invalid_argument("unknown --gpu " + *gpu + " (see memlens estimate's presets)");
        return {preset->bytes, "--gpu " + *gpu, preset->bytes};
    }
    if (auto capacity = cl.integer("capacity")) {
        if (*capacity <= 0)
            throw std::invalid_argument("--capacity takes a positive number of bytes");
        return {static_cast<uint64_t>(*capacity), "--capacity", std::nullopt};
    }
    return {};
}

} // namespace memlens
