#include "questions/OptionValues.h"

#include <algorithm>
#include <limits>

namespace memlens {

std::string optionTakes(const CommandOption &option)
{
    if (option.kind == OptionKind::Integer) {
        if (option.max == std::numeric_limits<int64_t>::max())
            return "a whole number ≥ " + std::to_string(option.min);
        return "a whole number from " + std::to_string(option.min) + " to " + std::to_string(option.max);
    }
    if (option.kind != OptionKind::Choice)
        return {};
    std::string text;
    for (size_t i = 0; i < option.choices.size(); ++i)
        text += (i == 0 ? "" : i + 1 == option.choices.size() ? " or " : ", ") + std::string(option.choices[i]);
    return text;
}

bool optionAdmits(const CommandOption &option, int64_t value)
{
    return option.kind == OptionKind::Integer && value >= option.min && value <= option.max;
}

bool optionAdmits(const CommandOption &option, std::string_view value)
{
    return option.kind == OptionKind::Choice && std::find(option.choices.begin(), option.choices.end(), value) != option.choices.end();
}

} // namespace memlens
