#pragma once
// The Model Context Protocol over JSON-RPC 2.0 (protocol version 2025-06-18): initialize,
// notifications/initialized, ping, tools/list, tools/call. One message in, at most one out;
// the transport (stdin/stdout lines, tool calls on a worker) is McpSession's.
#include "mcp/McpTools.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace memlens {

class McpServer {
public:
    explicit McpServer(McpToolContext context);

    // The response to one line of input; none for a notification. Never throws.
    std::optional<std::string> handleLine(const std::string &line);

    static constexpr const char *kProtocolVersion = "2025-06-18";
    // No tool takes more than a few paths and numbers: a longer request is refused unread.
    static constexpr size_t kMaxRequestBytes = 1 << 20;
    // The error answering a request longer than kMaxRequestBytes (its id unread).
    static std::string tooLongReply();

private:
    nlohmann::json dispatch(const std::string &method, const nlohmann::json &params);

    McpToolContext context_;
};

} // namespace memlens
