#include "cli/HelpCommand.h"

#include "cli/RenderCommand.h"
#include "questions/CommandOptions.h"
#include "questions/OptionValues.h"

#include <algorithm>
#include <iostream>

namespace memlens {

namespace {

constexpr std::string_view kMcpUsage = "memlens mcp [--root DIR]...\n"
                                       "           a Model Context Protocol server on stdin/stdout for coding agents: the figures above as tools,\n"
                                       "           over files below the --root directories (default: the current one)\n";

// One command's forms from the option table (questions/CommandOptions), with what they answer.
void printForms(const CommandSpec &spec, std::string_view firstPrefix)
{
    for (const CommandForm &form : spec.forms) {
        std::cout << (&form == &spec.forms.front() ? firstPrefix : "       ") << commandUsage(spec, form) << "\n";
        std::string_view about = form.about;
        while (!about.empty()) {
            const size_t end = std::min(about.find('\n'), about.size());
            std::cout << "           " << about.substr(0, end) << "\n";
            about.remove_prefix(std::min(about.size(), end + 1));
        }
    }
    if (spec.name == "render")
        std::cout << "           VIEW: " << renderViewNames(", ") << "\n";
}

void printCommands()
{
    for (const CommandSpec &spec : commandSpecs()) {
        printForms(spec, "       ");
        std::cout << "\n";
    }
}

// "  --top K                 most items per list (a whole number from 1 to 100)"
void printOptions(const CommandSpec &spec)
{
    std::cout << "Options:\n";
    for (const CommandOption &option : spec.options) {
        std::string flag = flagOf(option.name);
        if (!option.value.empty())
            flag += " " + std::string(option.value);
        std::cout << "  " << flag << std::string(flag.size() < 30 ? 30 - flag.size() : 1, ' ') << optionHelp(option);
        if (const std::string takes = optionTakes(option); option.kind == OptionKind::Integer && !takes.empty())
            std::cout << " (" << takes << ")";
        std::cout << "\n";
    }
    std::cout << "  --help, -h                    this text\n";
}

} // namespace

int runHelpCommand()
{
    std::cout << "usage: memlens [--theme light|dark|system] [--no-cache] [FILE|DIR...]   open the GUI (files, folders of ranks, .memlens sessions)\n"
                 "\n";
    printCommands();
    std::cout << "       " << kMcpUsage << "\n"
                 "       memlens --version | -V\n"
                 "           the version, with Qt's, zstd's and the snapshot cache's format\n"
                 "       memlens --list views|models|gpus|options COMMAND\n"
                 "           the names --view, --model and --gpu take, or a command's options, one per line (for shell completion)\n"
                 "\n"
                 "--no-cache: neither read nor write the decoded-snapshot cache ($XDG_CACHE_HOME/memlens)\n"
                 "Exit codes: 0 done, 1 a file could not be read, 2 wrong usage, 3 (diff) over a --fail-if limit.\n"
                 "The README has every JSON key. memlens help COMMAND (or memlens COMMAND --help): one command's options.\n";
    return 0;
}

int runCommandHelp(std::string_view command)
{
    if (command == "mcp") {
        std::cout << "usage: " << kMcpUsage;
        return 0;
    }
    for (const CommandSpec &spec : commandSpecs()) {
        if (spec.name != command)
            continue;
        printForms(spec, "usage: ");
        std::cout << "\n";
        printOptions(spec);
        return 0;
    }
    std::cerr << "memlens: '" << command << "' is not a memlens command; see 'memlens help'\n";
    return 2;
}

} // namespace memlens
