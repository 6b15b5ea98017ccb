#pragma once
// A question's refusal on the command line: "memlens COMMAND: …" on stderr, and the exit code
// (2 for an argument, 1 for a file that cannot answer).
#include "questions/QuestionError.h"

#include <string_view>

namespace memlens {

int reportQuestionError(std::string_view command, const QuestionError &error);

} // namespace memlens
