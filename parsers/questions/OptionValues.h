#pragma once
// What an option's value may be, checked in one place for every frontend: the command line's
// flags (app/options/CommandLine) and MCP's arguments (app/mcp/McpArguments) both ask here, from
// the option table (CommandOptions), so `--top 0` and `{"top": 0}` are refused alike.
#include "questions/CommandOptions.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace memlens {

// In words, for refusals: "a whole number from 1 to 100", "a whole number ≥ 0", "effort or saves";
// "" for the kinds the table does not bound.
std::string optionTakes(const CommandOption &option);

// An Integer option's value within its [min, max]; a Choice option's among its choices.
bool optionAdmits(const CommandOption &option, int64_t value);
bool optionAdmits(const CommandOption &option, std::string_view value);

} // namespace memlens
