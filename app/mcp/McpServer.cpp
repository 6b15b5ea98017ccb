#include "mcp/McpServer.h"
#include "questions/QuestionError.h"
#include "report/JsonText.h"

namespace memlens {

using nlohmann::json;

namespace {

// JSON-RPC 2.0's error codes.
constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601, kInvalidParams = -32602, kInternalError = -32603;

struct RpcError {
    int code;
    std::string message;
};

json errorResponse(const json &id, int code, const std::string &message)
{
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

// No request of the protocol nests deeper than a few levels. Parsing a deeper line survives,
// but copying or walking the value recurses once per level (140,000 levels in a 280 KB line
// overflowed the stack): such a line is refused before it is parsed.
constexpr size_t kMaxNesting = 64;

bool nestedTooDeep(std::string_view line)
{
    size_t depth = 0;
    bool inString = false, escaped = false;
    for (const char c : line) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxNesting)
                return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

} // namespace

McpServer::McpServer(McpToolContext context)
    : context_(std::move(context))
{
}

std::string McpServer::tooLongReply()
{
    return jsonText(errorResponse(nullptr, kInvalidRequest, "a request longer than " + std::to_string(kMaxRequestBytes) + " bytes"));
}

std::optional<std::string> McpServer::handleLine(const std::string &line)
{
    if (nestedTooDeep(line))
        return jsonText(errorResponse(nullptr, kInvalidRequest, "a request nested deeper than " + std::to_string(kMaxNesting) + " levels"));
    json message;
    try {
        message = json::parse(line);
    } catch (const json::parse_error &) {
        return jsonText(errorResponse(nullptr, kParseError, "not JSON"));
    }
    // Every member is checked for its type before it is read: nlohmann's value() and get() throw
    // on another type ("jsonrpc": 4 ended the server, found by fuzz_mcp).
    if (!message.is_object() || !message.contains("jsonrpc") || message["jsonrpc"] != "2.0" || !message.contains("method") ||
        !message["method"].is_string())
        return jsonText(errorResponse(message.is_object() && message.contains("id") ? message["id"] : json(nullptr), kInvalidRequest,
                                      "not a JSON-RPC 2.0 request"));
    const bool notification = !message.contains("id");
    const json id = notification ? json(nullptr) : message["id"];
    const json params = message.contains("params") ? message["params"] : json::object();
    try {
        if (!params.is_object())
            throw RpcError{kInvalidParams, "params: an object is expected"};
        json result = dispatch(message["method"].get<std::string>(), params);
        if (notification)
            return std::nullopt;
        return jsonText(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
    } catch (const RpcError &e) {
        return notification ? std::nullopt : std::optional(jsonText(errorResponse(id, e.code, e.message)));
    } catch (const McpArgumentError &e) {
        return notification ? std::nullopt : std::optional(jsonText(errorResponse(id, kInvalidParams, e.what())));
    } catch (const QuestionError &e) {
        return notification ? std::nullopt : std::optional(jsonText(errorResponse(id, kInvalidParams, toolText(e))));
    } catch (const std::exception &e) {
        return notification ? std::nullopt : std::optional(jsonText(errorResponse(id, kInternalError, e.what())));
    }
}

json McpServer::dispatch(const std::string &method, const json &params)
{
    if (method == "initialize")
        return {{"protocolVersion", kProtocolVersion},
                {"capabilities", {{"tools", {{"listChanged", false}}}}},
                {"serverInfo", {{"name", "memlens"}, {"version", MEMLENS_VERSION}}},
                {"instructions", "Tools over PyTorch GPU memory snapshots (torch.cuda.memory._dump_snapshot) and profiler traces: "
                                 "start with summary, then live_at / stacks at the peak or the OOM, advise for what to change."}};
    if (method == "notifications/initialized" || method == "notifications/cancelled")
        return json::object();
    if (method == "ping")
        return json::object();
    if (method == "tools/list") {
        json tools = json::array();
        for (const McpTool &t : mcpTools())
            tools.push_back({{"name", t.name}, {"description", t.description}, {"inputSchema", t.inputSchema}});
        return {{"tools", tools}};
    }
    if (method == "tools/call") {
        if (!params.contains("name") || !params["name"].is_string())
            throw RpcError{kInvalidParams, "name: the tool's name is required"};
        const std::string name = params["name"].get<std::string>();
        const json arguments = params.contains("arguments") ? params["arguments"] : json::object();
        if (!arguments.is_object())
            throw RpcError{kInvalidParams, "arguments: an object is expected"};
        for (const McpTool &t : mcpTools()) {
            if (t.name != name)
                continue;
            for (auto it = arguments.begin(); it != arguments.end(); ++it) {
                if (!t.inputSchema["properties"].contains(it.key()))
                    throw RpcError{kInvalidParams, it.key() + ": not an argument of " + name};
            }
            McpToolResult r = t.run(arguments, context_);
            return {{"content", json::array({{{"type", "text"}, {"text", r.text}}})}, {"structuredContent", std::move(r.structured)}, {"isError", false}};
        }
        throw RpcError{kInvalidParams, "name: no tool '" + name + "'"};
    }
    throw RpcError{kMethodNotFound, "no method '" + method + "'"};
}

} // namespace memlens
