#pragma once
// docs/cli.md: every command's forms and options as Markdown, made from the option table
// (questions/CommandOptions) by `memlens help --markdown`; a test keeps the file equal to it.
#include <string>

namespace memlens {

std::string commandReferenceMarkdown();
int runReferenceCommand();

} // namespace memlens
