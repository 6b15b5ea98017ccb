#pragma once
// `memlens --help`: every command's usage and what it answers.

namespace memlens {

int runHelpCommand();

} // namespace memlens
