#include "options/CommandLine.h"

#include "questions/OptionValues.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace memlens {

namespace {

std::set<std::string> asSet(const std::vector<std::string> &names)
{
    return {names.begin(), names.end()};
}

// Edits (insert, delete, replace a letter, swap two neighbours) from one name to the other.
size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

// "; did you mean --top?" for a misspelt option, as git and cargo say it; "" when none is close.
std::string nearestOption(const std::string &name, const std::set<std::string> &valued, const std::set<std::string> &flags)
{
    std::string best;
    size_t bestDistance = std::max<size_t>(2, name.size() / 3) + 1;
    for (const std::set<std::string> *names : {&valued, &flags}) {
        for (const std::string &candidate : *names) {
            if (const size_t d = editDistance(name, candidate); d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
    }
    return best.empty() ? std::string() : "; did you mean " + std::string(best.size() == 1 ? "-" : "--") + best + "?";
}

} // namespace

CommandLine::CommandLine(const std::vector<std::string> &args, const CommandSpec &spec, std::string_view form)
    : CommandLine(args, asSet(valuedOptions(spec, form)), asSet(flagOptions(spec, form)))
{
    spec_ = &spec;
    // Options of one group exclude each other (`--json` and `--folded`, `--gpu` and `--capacity`):
    // the table draws them as [--a | --b], in its order, and the reader refuses both.
    std::map<std::string_view, std::string> givenOfGroup;
    for (const CommandOption &option : spec.options) {
        const std::string name = flagOf(option.name).substr(option.name.size() == 1 ? 1 : 2);
        if (option.group.empty() || (!flags_.count(name) && !values_.count(name)))
            continue;
        const auto [it, first] = givenOfGroup.try_emplace(option.group, flagOf(option.name));
        if (!first)
            throw std::invalid_argument("give " + it->second + " or " + flagOf(option.name) + ", not both");
    }
    // Whole numbers and choices as the option table bounds them (questions/OptionValues, which MCP
    // asks too).
    for (const auto &[name, text] : values_) {
        const CommandOption *option = tableOption(name);
        if (!option || (option->kind != OptionKind::Integer && option->kind != OptionKind::Choice))
            continue;
        int64_t number = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
        const bool whole = ec == std::errc() && end == text.data() + text.size();
        if (option->kind == OptionKind::Integer ? !(whole && optionAdmits(*option, number)) : !optionAdmits(*option, text))
            throw std::invalid_argument(flagOf(option->name) + " takes " + optionTakes(*option) + ", not '" + text + "'");
    }
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
            throw std::invalid_argument("unknown option " + arg + nearestOption(name, valued, flags));
        }
    }
}

const CommandOption *CommandLine::tableOption(const std::string &name) const
{
    if (!spec_)
        return nullptr;
    std::string tableName = name;
    std::replace(tableName.begin(), tableName.end(), '-', '_');
    return spec_->option(tableName);
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
    if (!text) {
        const CommandOption *option = tableOption(name);
        return option && option->byDefault ? std::optional<long long>(*option->byDefault) : std::nullopt;
    }
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
