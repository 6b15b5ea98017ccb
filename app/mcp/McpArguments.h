#pragma once
// Reading a tool call's arguments: each reader names the argument in its error.
#include "index/Moment.h"
#include "mcp/McpTools.h"
#include "questions/CommandOptions.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

std::optional<std::string> stringArgument(const nlohmann::json &args, const std::string &name);
std::string requiredString(const nlohmann::json &args, const std::string &name);
std::optional<int64_t> integerArgument(const nlohmann::json &args, const std::string &name, int64_t min, int64_t max);
// An Integer option of the table (questions/CommandOptions), bounded as the command line bounds it.
std::optional<int64_t> integerArgument(const nlohmann::json &args, const CommandOption &option);
std::optional<double> numberArgument(const nlohmann::json &args, const std::string &name, double min, double max);
bool flagArgument(const nlohmann::json &args, const std::string &name);
// `top`: every list in an answer is cut to it (default 10, at most 100), as `--top K` cuts the
// command line's lists.
// The tool's `top`, else the default its command's option has in the table.
size_t topArgument(const nlohmann::json &args, std::string_view command);
// `at`: "peak", "oom", "end" or an event number.
std::optional<Moment> momentArgument(const nlohmann::json &args);

} // namespace memlens
