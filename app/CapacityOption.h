#pragma once
// `--gpu PRESET | --capacity BYTES`, as advise and replay take them.
#include "CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace memlens {

struct CapacityOption {
    std::optional<uint64_t> bytes;
    std::string source; // "--gpu h100-80", "--capacity"
    std::optional<uint64_t> deviceTotal; // --gpu: the whole device, some of it held outside the allocator
};

// Throws std::invalid_argument for both given, an unknown preset or a capacity of 0.
CapacityOption capacityOption(const CommandLine &cl);

} // namespace memlens
