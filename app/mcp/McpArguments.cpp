#include "mcp/McpArguments.h"

#include "questions/OptionValues.h"

namespace memlens {

std::optional<std::string> stringArgument(const nlohmann::json &args, const std::string &name)
{
    if (!args.contains(name) || args[name].is_null())
        return std::nullopt;
    if (!args[name].is_string())
        throw McpArgumentError(name + ": a string is expected");
    return args[name].get<std::string>();
}

std::string requiredString(const nlohmann::json &args, const std::string &name)
{
    const std::optional<std::string> s = stringArgument(args, name);
    if (!s)
        throw McpArgumentError(name + ": required");
    return *s;
}

std::optional<int64_t> integerArgument(const nlohmann::json &args, const std::string &name, int64_t min, int64_t max)
{
    if (!args.contains(name) || args[name].is_null())
        return std::nullopt;
    if (!args[name].is_number_integer())
        throw McpArgumentError(name + ": an integer is expected");
    const int64_t v = args[name].is_number_unsigned() && args[name].get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : args[name].get<int64_t>();
    if (v < min || v > max)
        throw McpArgumentError(name + ": " + std::to_string(v) + " is outside " + std::to_string(min) + "–" + std::to_string(max));
    return v;
}

std::optional<double> numberArgument(const nlohmann::json &args, const std::string &name, double min, double max)
{
    if (!args.contains(name) || args[name].is_null())
        return std::nullopt;
    if (!args[name].is_number())
        throw McpArgumentError(name + ": a number is expected");
    const double v = args[name].get<double>();
    if (!(v >= min && v <= max))
        throw McpArgumentError(name + ": out of range");
    return v;
}

bool flagArgument(const nlohmann::json &args, const std::string &name)
{
    if (!args.contains(name) || args[name].is_null())
        return false;
    if (!args[name].is_boolean())
        throw McpArgumentError(name + ": true or false is expected");
    return args[name].get<bool>();
}

std::optional<int64_t> integerArgument(const nlohmann::json &args, const CommandOption &option)
{
    const std::string name(option.name);
    const std::optional<int64_t> v = integerArgument(args, name, INT64_MIN, INT64_MAX);
    if (v && !optionAdmits(option, *v))
        throw McpArgumentError(name + ": " + std::to_string(*v) + " is not " + optionTakes(option));
    return v;
}

size_t topArgument(const nlohmann::json &args, std::string_view command)
{
    const CommandOption &top = *commandSpec(command).option("top");
    return static_cast<size_t>(integerArgument(args, top).value_or(top.byDefault.value_or(top.max)));
}

std::optional<Moment> momentArgument(const nlohmann::json &args)
{
    if (!args.contains("at") || args["at"].is_null())
        return std::nullopt;
    if (args["at"].is_number_integer()) {
        const int64_t e = args["at"].get<int64_t>();
        if (e < 0 || e > int64_t(UINT32_MAX - 2))
            throw McpArgumentError("at: no such event number");
        return Moment::at(EventId(static_cast<uint32_t>(e)));
    }
    if (args["at"].is_string()) {
        if (const std::optional<Moment> m = Moment::parse(args["at"].get<std::string>()))
            return m;
    }
    throw McpArgumentError("at: \"peak\", \"oom\", \"end\" or an event number is expected");
}

} // namespace memlens
