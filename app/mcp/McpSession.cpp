#include "mcp/McpSession.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

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

struct ToolCall {
    nlohmann::json id;
    std::string line;
};

} // namespace

void runMcpSession(McpServer &server, std::istream &in, std::ostream &out)
{
    std::mutex outMutex;
    auto write = [&](const std::string &reply) {
        const std::lock_guard lock(outMutex);
        out << reply << '\n' << std::flush;
    };
    std::mutex queueMutex;
    std::condition_variable ready;
    std::deque<ToolCall> queue;
    bool closed = false;
    std::thread worker([&] {
        for (;;) {
            ToolCall call;
            {
                std::unique_lock lock(queueMutex);
                ready.wait(lock, [&] { return closed || !queue.empty(); });
                if (queue.empty())
                    return;
                call = std::move(queue.front());
                queue.pop_front();
            }
            if (const std::optional<std::string> reply = server.handleLine(call.line))
                write(*reply);
        }
    });
    std::string line;
    for (bool tooLong = false; readRequestLine(in, line, tooLong);) {
        if (tooLong) {
            write(McpServer::tooLongReply());
            continue;
        }
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
        const std::string method = message.is_object() && message.contains("method") && message["method"].is_string() ? message["method"].get<std::string>() : "";
        if (method == "tools/call") {
            const std::lock_guard lock(queueMutex);
            queue.push_back({message.value("id", nlohmann::json()), line});
            ready.notify_one();
            continue;
        }
        if (method == "notifications/cancelled" && message.contains("params") && message["params"].is_object() &&
            message["params"].contains("requestId")) {
            const std::lock_guard lock(queueMutex);
            std::erase_if(queue, [&](const ToolCall &c) { return c.id == message["params"]["requestId"]; });
        }
        if (const std::optional<std::string> reply = server.handleLine(line))
            write(*reply);
    }
    {
        const std::lock_guard lock(queueMutex);
        closed = true;
    }
    ready.notify_one();
    worker.join();
}

} // namespace memlens
