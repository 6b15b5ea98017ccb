#include "questions/QuestionError.h"

#include "questions/CommandOptions.h"

namespace memlens {

std::string commandLineText(const QuestionError &error)
{
    if (error.value)
        return flagOf(error.argument) + " " + *error.value + ": " + error.what();
    return error.what();
}

std::string toolText(const QuestionError &error)
{
    return error.argument + (error.value ? " " + *error.value : std::string()) + ": " + error.what();
}

} // namespace memlens
