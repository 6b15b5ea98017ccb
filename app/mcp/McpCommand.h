#pragma once
// `memlens mcp [--root DIR]…`: the MCP server on stdin/stdout, one JSON-RPC message per line;
// nothing but protocol on stdout, logs on stderr.
#include <string>
#include <vector>

namespace memlens {

int runMcpCommand(const std::vector<std::string> &args);

} // namespace memlens
