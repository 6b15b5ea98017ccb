#pragma once
// A small option parser for the headless subcommands: "--name value", "--name=value", flags.
#include "index/Moment.h"
#include "questions/CommandOptions.h"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace memlens {

class CommandLine {
public:
    // `valued` options take a value, `flags` do not; anything else starting with "--" is an error.
    CommandLine(const std::vector<std::string> &args, const std::set<std::string> &valued,
                const std::set<std::string> &flags);
    // The options questions/CommandOptions lists for `spec` (for the operand `form`, if given).
    CommandLine(const std::vector<std::string> &args, const CommandSpec &spec, std::string_view form = {});

    const std::vector<std::string> &positional() const { return positional_; }
    bool flag(const std::string &name) const { return flags_.count(name) > 0; }
    std::optional<std::string> value(const std::string &name) const;
    // Parses a non-negative integer option, else the table's default for it (none without one,
    // or when built without a table); throws std::invalid_argument naming the option.
    std::optional<long long> integer(const std::string &name) const;
    // Parses a non-negative number (a percentage, seconds); throws std::invalid_argument naming
    // the option and `what` it takes.
    std::optional<double> number(const std::string &name, const std::string &what) const;
    // Parses --at-like options: peak, oom, end or an event number; throws std::invalid_argument.
    std::optional<Moment> moment(const std::string &name) const;

private:
    // The table's option of a command-line name ("fail-if-peak-grows"), null without a table.
    const CommandOption *tableOption(const std::string &name) const;

    const CommandSpec *spec_ = nullptr; // the table read from, when there is one
    std::vector<std::string> positional_;
    std::set<std::string> flags_;
    std::map<std::string, std::string> values_;
};

} // namespace memlens
