#pragma once
// The one way memlens turns JSON into text (CLI, MCP, sessions, watch logs, reports): bytes that
// are not UTF-8 (a Latin-1 file name, a corrupt frame name in a snapshot) become U+FFFD instead
// of aborting the whole output, as nlohmann's default (strict) dump does.
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace memlens {

// `indent` as nlohmann::json::dump takes it: -1 for one line.
std::string jsonText(const nlohmann::json &value, int indent = -1);

} // namespace memlens
