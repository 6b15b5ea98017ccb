#include "mcp/McpCommand.h"

#include "mcp/McpServer.h"
#include "mcp/McpSession.h"

#include <filesystem>
#include <iostream>

namespace memlens {

int runMcpCommand(const std::vector<std::string> &args)
{
    std::vector<std::filesystem::path> roots;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--root" && i + 1 < args.size()) {
            roots.emplace_back(args[++i]);
        } else {
            std::cerr << "usage: memlens mcp [--root DIR]...\n";
            return 2;
        }
    }
    if (roots.empty())
        roots.emplace_back(std::filesystem::current_path());
    McpToolContext context(roots);
    if (context.roots().empty()) {
        std::cerr << "memlens mcp: none of the --root directories exists\n";
        return 2;
    }
    McpServer server(std::move(context));
    std::cerr << "memlens mcp: serving " << mcpTools().size() << " tools over stdio\n";
    std::ios::sync_with_stdio(false);
    runMcpSession(server, std::cin, std::cout);
    return 0;
}

} // namespace memlens
