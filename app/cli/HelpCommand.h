#pragma once
// `memlens --help` (and `memlens help`): every command's usage and what it answers;
// `memlens COMMAND --help` and `memlens help COMMAND`: one command's forms and options, as git
// and cargo show theirs.
#include <string_view>

namespace memlens {

int runHelpCommand();
// Exit 0, or 2 with a one-line refusal when there is no such command.
int runCommandHelp(std::string_view command);

} // namespace memlens
