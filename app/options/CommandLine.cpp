#include "options/CommandLine.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace memlens {

namespace {

std::set<std::string> asSet(const std::vector<std::string> &names)
{
    return {names.begin(), names.end()};
}

} // namespace

CommandLine::CommandLine(const std::vector<std::string> &args, const CommandSpec &spec, std::string_view form)
    : CommandLine(args, asSet(valuedOptions(spec, form)), asSet(flagOptions(spec, form)))
{
}

CommandLine::CommandLine(const std::vector<std::string> &args, const std::set<std::string> &valued,
                         const std::set<std::string> &flags)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        // Single-letter options ("-o FILE") are spelled with one dash.
        const bool shortOption = arg.size() == 2 && arg[0] == '-' && std::isalpha(static_cast<unsigned char>(arg[1]));
        if (!shortOption && (arg.rfind("--", 0) != 0 || arg == "--")) {
            positional_.push_back(arg);
            continue;
        }
        std::string name = arg.substr(shortOption ? 1 : 2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        if (valued.count(name)) {
            if (inlineValue) {
                values_[name] = *inlineValue;
            } else {
                if (i + 1 >= args.size())
                    throw std::invalid_argument(arg + " needs a value");
                values_[name] = args[++i];
            }
        } else if (flags.count(name) && !inlineValue) {
            flags_.insert(name);
        } else {
            throw std::invalid_argument("unknown option " + arg);
        }
    }
}

std::optional<std::string> CommandLine::value(const std::string &name) const
{
    auto it = values_.find(name);
    if (it == values_.end())
        return std::nullopt;
    return it->second;
}

std::optional<long long> CommandLine::integer(const std::string &name) const
{
    auto text = value(name);
    if (!text)
        return std::nullopt;
    long long v = 0;
    auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || ptr != text->data() + text->size() || v < 0)
        throw std::invalid_argument("--" + name + " takes a non-negative whole number, not '" + *text + "'");
    return v;
}

std::optional<double> CommandLine::number(const std::string &name, const std::string &what) const
{
    const auto text = value(name);
    if (!text)
        return std::nullopt;
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(*text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != text->size() || !std::isfinite(v) || v < 0)
        throw std::invalid_argument("--" + name + " takes " + what + " (a number ≥ 0), not \"" + *text + "\"");
    return v;
}

std::optional<Moment> CommandLine::moment(const std::string &name) const
{
    auto text = value(name);
    if (!text)
        return std::nullopt;
    const auto m = Moment::parse(*text);
    if (!m)
        throw std::invalid_argument("--" + name + " takes peak, oom, end or an event number, not '" + *text + "'");
    return m;
}

} // namespace memlens
