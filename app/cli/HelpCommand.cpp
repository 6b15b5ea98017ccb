#include "cli/HelpCommand.h"

#include "cli/RenderCommand.h"
#include "questions/CommandOptions.h"

#include <algorithm>
#include <iostream>

namespace memlens {

namespace {

// Each command's forms from the option table (questions/CommandOptions), with what they answer.
void printCommands()
{
    for (const CommandSpec &spec : commandSpecs()) {
        for (const CommandForm &form : spec.forms) {
            std::cout << "       " << commandUsage(spec, form) << "\n";
            std::string_view about = form.about;
            while (!about.empty()) {
                const size_t end = std::min(about.find('\n'), about.size());
                std::cout << "           " << about.substr(0, end) << "\n";
                about.remove_prefix(std::min(about.size(), end + 1));
            }
        }
        if (spec.name == "render")
            std::cout << "           VIEW: " << renderViewNames(", ") << "\n";
        std::cout << "\n";
    }
}

} // namespace

int runHelpCommand()
{
    std::cout << "usage: memlens [--theme light|dark|system] [--no-cache] [FILE|DIR...]   open the GUI (files, folders of ranks, .memlens sessions)\n"
                 "\n";
    printCommands();
    std::cout << "       memlens mcp [--root DIR]...\n"
                 "           a Model Context Protocol server on stdin/stdout for coding agents: the figures above as tools,\n"
                 "           over files below the --root directories (default: the current one)\n"
                 "\n"
                 "       memlens --version | -V\n"
                 "           the version, with Qt's, zstd's and the snapshot cache's format\n"
                 "       memlens --list views|models|gpus|options COMMAND\n"
                 "           the names --view, --model and --gpu take, or a command's options, one per line (for shell completion)\n"
                 "\n"
                 "--no-cache: neither read nor write the decoded-snapshot cache ($XDG_CACHE_HOME/memlens)\n"
                 "Exit codes: 0 done, 1 a file could not be read, 2 wrong usage, 3 (diff) over a --fail-if limit.\n"
                 "The README has every JSON key.\n";
    return 0;
}

} // namespace memlens
