#pragma once
// `memlens replay` output: the JSON the README documents, and the text a person reads.
#include "replay/Replay.h"

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace memlens {

nlohmann::json replayJson(const std::string &file, const ReplayResult &r);
std::string replayText(const std::string &file, const ReplayResult &r);
// Where the predicted segment allocations first differ from the recorded ones (index into
// both), none when they are the same sequence.
std::optional<size_t> firstSegmentDifference(const ReplayResult &r);

} // namespace memlens
