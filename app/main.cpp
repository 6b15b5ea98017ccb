// memlens: one binary for the window, the headless commands and the MCP server; the first
// argument picks which.
#include "cli/AdviseCommand.h"
#include "cli/CommandReference.h"
#include "cli/DiffCommand.h"
#include "cli/EstimateCommand.h"
#include "cli/ExportCommand.h"
#include "cli/HelpCommand.h"
#include "cli/ListCommand.h"
#include "cli/RenderCommand.h"
#include "cli/ReplayCommand.h"
#include "cli/StandardOutput.h"
#include "cli/SummaryCommand.h"
#include "cli/VersionCommand.h"
#include "cli/WatchCommand.h"
#include "gui/GuiCommand.h"
#include "mcp/McpCommand.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

int main(int argc, char **argv)
{
    using Args = std::vector<std::string>;
    struct Command {
        std::string_view name;
        int (*run)(const Args &);
    };
    static const Command commands[] = {
        {"summary", memlens::runSummaryCommand}, {"diff", memlens::runDiffCommand},   {"advise", memlens::runAdviseCommand},
        {"replay", memlens::runReplayCommand},   {"estimate", memlens::runEstimateCommand}, {"mcp", memlens::runMcpCommand},
        {"watch", memlens::runWatchCommand},     {"export", memlens::runExportCommand}, {"--list", memlens::runListCommand},
    };
    const Args args(argv + 1, argv + argc);
    const std::string_view first = args.empty() ? std::string_view() : std::string_view(args.front());
    using memlens::exitAfterWriting; // a headless command's answer went out whole, or it exits 1
    if (first == "help") { // `memlens help`, `memlens help COMMAND`, as git's; docs/cli.md
        if (args.size() > 1)
            return exitAfterWriting(args[1] == "--markdown" ? memlens::runReferenceCommand() : memlens::runCommandHelp(args[1]));
        return exitAfterWriting(memlens::runHelpCommand());
    }
    const bool asksHelp = std::any_of(args.begin() + std::min<size_t>(1, args.size()), args.end(),
                                      [](const std::string &a) { return a == "--help" || a == "-h"; });
    if (asksHelp && first != "--list" && (first == "render" || std::any_of(std::begin(commands), std::end(commands), [&](const Command &c) { return c.name == first; })))
        return exitAfterWriting(memlens::runCommandHelp(first));
    for (const Command &c : commands) {
        if (first == c.name)
            return exitAfterWriting(c.run({args.begin() + 1, args.end()}));
    }
    if (first == "render")
        return exitAfterWriting(memlens::runRenderCommand(argc, argv)); // Qt takes its own options from argv
    if (first == "--version" || first == "-V")
        return exitAfterWriting(memlens::runVersionCommand());
    if (first == "--help" || first == "-h")
        return exitAfterWriting(memlens::runHelpCommand());
    return memlens::runGuiCommand(argc, argv);
}
