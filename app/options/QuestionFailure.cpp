#include "options/QuestionFailure.h"

#include <iostream>

namespace memlens {

int reportQuestionError(std::string_view command, const QuestionError &error)
{
    std::cerr << "memlens " << command << ": " << commandLineText(error) << '\n';
    return error.kind == QuestionError::Kind::Input ? 1 : 2;
}

} // namespace memlens
