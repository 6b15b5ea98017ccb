#include "mcp/McpCommand.h"

#include "mcp/McpServer.h"

#include <filesystem>
#include <iostream>

namespace memlens {

namespace {

// One line of at most McpServer::kMaxRequestBytes; a longer one is read to its end and dropped
// (`tooLong`), so a client cannot make the server hold an unbounded line.
bool readRequestLine(std::istream &in, std::string &line, bool &tooLong)
{
    line.clear();
    tooLong = false;
    std::streambuf *buffer = in.rdbuf();
    for (int c = buffer->sbumpc();; c = buffer->sbumpc()) {
        if (c == std::char_traits<char>::eof())
            return !line.empty() || tooLong;
        if (c == '\n')
            return true;
        if (line.size() < McpServer::kMaxRequestBytes)
            line.push_back(static_cast<char>(c));
        else
            tooLong = true;
    }
}

} // namespace

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
    std::string line;
    for (bool tooLong = false; readRequestLine(std::cin, line, tooLong);) {
        if (tooLong) {
            std::cout << McpServer::tooLongReply() << '\n' << std::flush;
            continue;
        }
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        if (const std::optional<std::string> reply = server.handleLine(line))
            std::cout << *reply << '\n' << std::flush;
    }
    return 0;
}

} // namespace memlens
