#pragma once
// A GPU preset or a capacity in bytes: the command line's `--gpu PRESET | --capacity BYTES` (advise,
// replay, summary) and the MCP tools' `gpu` / `capacity` arguments, read by one rule.
#include "options/CommandLine.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memlens {

struct CapacityOption {
    std::optional<uint64_t> bytes;
    std::string source; // "--gpu h100-80", "--capacity"
    std::optional<uint64_t> deviceTotal; // --gpu: the whole device, some of it held outside the allocator
};

// What is wrong, and with which argument ("gpu" or "capacity").
struct CapacityArgumentError : std::invalid_argument {
    CapacityArgumentError(std::string argument, const std::string &message) : std::invalid_argument(message), argument(std::move(argument)) {}
    std::string argument;
};

// Both given, an unknown preset or a capacity of 0 or less throw. `dashes` is how the caller
// spells its options in messages: "--" on the command line, "" for MCP arguments.
CapacityOption resolveCapacity(const std::optional<std::string> &gpu, const std::optional<int64_t> &capacity, std::string_view dashes);
// resolveCapacity over --gpu and --capacity.
CapacityOption capacityOption(const CommandLine &cl);

} // namespace memlens
