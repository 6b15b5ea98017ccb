#pragma once
// `memlens [--theme …] [--no-cache] [FILE|DIR…]`: the window, with the files given opened.

namespace memlens {

int runGuiCommand(int argc, char **argv);

} // namespace memlens
