#pragma once
// A GPU preset or a capacity in bytes: the command line's `--gpu PRESET | --capacity BYTES` (advise,
// replay, summary) and the MCP tools' `gpu` / `capacity` arguments, admitted by one rule.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace memlens {

struct CapacityRequest {
    std::optional<uint64_t> bytes;
    std::string source; // "--gpu h100-80", "--capacity"
    std::optional<uint64_t> deviceTotal; // --gpu: the whole device, some of it held outside the allocator
};

// Both given, an unknown preset or a capacity of 0 or less throw QuestionError naming "gpu" or
// "capacity". `dashes` is how the caller spells its options in messages: "--" on the command
// line, "" for MCP arguments.
CapacityRequest resolveCapacity(const std::optional<std::string> &gpu, const std::optional<int64_t> &capacity, std::string_view dashes);

} // namespace memlens
