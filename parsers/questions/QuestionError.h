#pragma once
// Why a question cannot be answered as asked, naming the argument at fault, so that each
// frontend words it its own way: the command line as "--at oom: device 0 has no OOM entry"
// (exit 2, or 1 when the file itself cannot answer), a tool call and the window as "at oom:
// device 0 has no OOM entry". An error about an option's value carries it; one without a value
// names its option in the message itself ("give --gpu or --capacity, not both"), and one about an
// operand (path, a, b) names the file.
#include <optional>
#include <stdexcept>
#include <string>

namespace memlens {

struct QuestionError : std::invalid_argument {
    enum class Kind {
        Usage, // an argument is wrong
        Input, // the file cannot answer this question (a profiler trace to replay)
    };
    QuestionError(std::string argument, const std::string &message, Kind kind = Kind::Usage, std::optional<std::string> value = std::nullopt)
        : std::invalid_argument(message), argument(std::move(argument)), value(std::move(value)), kind(kind)
    {
    }
    std::string argument;             // MCP's name: "device", "at", "path"
    std::optional<std::string> value; // the argument's value, when the message is about it ("oom")
    Kind kind;
};

// "--at oom: device 0 has no OOM entry" when the error names a value, else the message.
std::string commandLineText(const QuestionError &error);
// "at oom: device 0 has no OOM entry" when the error names a value, else "at: …".
std::string toolText(const QuestionError &error);

} // namespace memlens
