#pragma once
// The stdio transport of `memlens mcp`: one JSON-RPC message a line in, replies a line out.
// Tool calls run one at a time on a worker thread, in the order they came; everything else
// (initialize, ping, tools/list) is answered at once, also while a tool runs, and a
// notifications/cancelled drops the request it names if it has not started (no reply, as the
// protocol asks).
#include "mcp/McpServer.h"

#include <iostream>

namespace memlens {

void runMcpSession(McpServer &server, std::istream &in, std::ostream &out);

} // namespace memlens
