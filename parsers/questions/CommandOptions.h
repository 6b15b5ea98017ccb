#pragma once
// The options of each command, written once. The command line's flags (`--name`, with '-' for
// '_'; `-o` for one letter), bash completion (`memlens --list options COMMAND`) and the MCP
// tools' argument schemas are made from these tables, so a figure is asked for by one name
// everywhere; tests check `--help` against them.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

enum class OptionKind : uint8_t {
    Flag,    // no value
    Integer, // a whole number in [min, max]
    Number,  // a decimal number (a percentage, seconds)
    Text,    // free text (a preset name, a file, a setting)
    Moment,  // peak, oom, end or an event number
    Choice,  // one of `choices`
};

struct CommandOption {
    std::string_view name;  // MCP's argument name; the flag is made from it
    OptionKind kind = OptionKind::Flag;
    std::string_view value; // usage's name for the value: "N", "PCT", "PRESET"
    std::string_view help;  // one line, for MCP's schema
    int64_t min = 0;
    int64_t max = std::numeric_limits<int64_t>::max();
    std::vector<std::string_view> choices;
    bool mcp = true; // false: no MCP tool takes it (a way of printing: --json, --no-cache; or a
                     // choice the tools leave to the client: --sort, summary's --gpu and --step)
    // The operand it goes with, when the command takes several kinds ("FILE" or "DIR" of
    // `summary FILE|DIR`); empty: any.
    std::string_view form;
    // Options of one group exclude each other: `--help` shows them as [--json | --markdown], and
    // the command line's reader refuses both.
    std::string_view group;
    // A whole number's value when it is not given: the one default the command line, MCP,
    // `--help` and docs/cli.md all take from here.
    std::optional<int64_t> byDefault;
};

// One way of calling a command, as `--help` shows it: its operands and what it answers.
struct CommandForm {
    std::string_view operands; // "FILE", "DIR"; an option's `form` picks its forms
    std::string_view about;    // one or more lines, '\n' between them
};

struct CommandSpec {
    std::string_view name;     // "diff"
    std::string_view operands; // "A B"
    std::vector<CommandOption> options;
    std::vector<CommandForm> forms; // in `--help`'s order

    const CommandOption *option(std::string_view optionName) const;
};

// Every headless command's options: summary, diff, advise, replay, render, export, watch, estimate.
const std::vector<CommandSpec> &commandSpecs();
// The command of that name; throws std::out_of_range for another.
const CommandSpec &commandSpec(std::string_view name);

// "--fail-if-peak-grows" for "fail_if_peak_grows"; "-o" for "o".
std::string flagOf(std::string_view name);
// The CLI's option names (CommandLine's spelling, without dashes) that take a value, and those
// that do not, for the operand `form` ("FILE", "DIR"; empty: every option).
std::vector<std::string> valuedOptions(const CommandSpec &spec, std::string_view form = {});
std::vector<std::string> flagOptions(const CommandSpec &spec, std::string_view form = {});

// "memlens diff A B [--at peak|oom|end|EVENT] … [--no-cache]", wrapped before `width` columns
// with continuation lines indented: `--help`'s synopsis and the usage errors.
std::string commandUsage(const CommandSpec &spec, const CommandForm &form, size_t width = 118);

// "usage: memlens …" of the command's forms (those whose operands start with `form`, if given),
// one line each: the command line's usage error.
std::string usageLine(const CommandSpec &spec, std::string_view form = {});

// The option's help line with its default: "most items per list (default 10)".
std::string optionHelp(const CommandOption &option);

// The JSON schema of one option's value, as MCP's tools/list shows it.
nlohmann::json optionSchema(const CommandOption &option);

} // namespace memlens
