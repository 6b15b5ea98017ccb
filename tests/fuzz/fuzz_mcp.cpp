// libFuzzer target for the MCP server's request handling: the input is lines of JSON-RPC (or
// anything), each handed to the server as `memlens mcp` hands it one line of stdin. Whatever
// comes back must be exactly one JSON-RPC 2.0 message (a result or an error), never an
// exception or a crash. The server reads below a root holding a small corpus snapshot, so tool
// calls that name it run the analyses too.
// Build: cmake -DMEMLENS_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
#include "mcp/McpServer.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

memlens::McpServer &server()
{
    static memlens::McpServer *s = [] {
        namespace fs = std::filesystem;
        const fs::path root = fs::temp_directory_path() / "memlens-fuzz-mcp";
        fs::create_directories(root);
        std::error_code ec;
        fs::copy_file(fs::path(MEMLENS_CORPUS_DIR) / "snapshots/streams_pending_free/snapshot.pickle", root / "s.pickle",
                      fs::copy_options::skip_existing, ec);
        return new memlens::McpServer(memlens::McpToolContext({root}));
    }();
    return *s;
}

void checkReply(const std::string &line)
{
    const std::optional<std::string> reply = server().handleLine(line);
    if (!reply)
        return; // a notification
    const nlohmann::json message = nlohmann::json::parse(*reply, nullptr, false);
    if (message.is_discarded() || !message.is_object() || message.value("jsonrpc", "") != "2.0" ||
        (message.contains("result") == message.contains("error")) || reply->find('\n') != std::string::npos)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string input(reinterpret_cast<const char *>(data), size);
    size_t start = 0;
    for (size_t end = input.find('\n'); start < input.size(); end = input.find('\n', start)) {
        const std::string line = input.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!line.empty() && line.size() <= memlens::McpServer::kMaxRequestBytes)
            checkReply(line);
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return 0;
}
