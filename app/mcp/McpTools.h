#pragma once
// The tools `memlens mcp` serves: each a name, a description, a JSON Schema for its arguments
// and a handler giving a structured answer (the CLI's JSON figures, lists capped) and a short
// text. Files are opened by path, only below the roots given; opened snapshots are kept.
#include "cache/CachedSnapshot.h"
#include "ranks/RankFiles.h"

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace memlens {

// A bad argument: the JSON-RPC error "invalid params", naming it.
struct McpArgumentError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

class McpToolContext {
public:
    explicit McpToolContext(std::vector<std::filesystem::path> roots);

    // The path below a root, canonical, a regular file or a folder as `kind` asks; throws
    // McpArgumentError naming `argument` otherwise (a NUL in the path, a FIFO, a device).
    enum class PathKind { File, Folder, Either };
    std::filesystem::path allowedPath(const std::string &path, const std::string &argument, PathKind kind = PathKind::Either) const;
    // Whether a path (a file found in a folder) resolves below a root.
    bool withinRoots(const std::filesystem::path &path) const;
    // The folder's files that resolve below a root, the others named in its notes.
    RankFolder rankFolder(const std::filesystem::path &folder) const;
    // The snapshot at `path`, decoded once per modification (and through the disk cache).
    std::shared_ptr<const Snapshot> snapshot(const std::filesystem::path &path, const std::string &argument);
    const std::vector<std::filesystem::path> &roots() const { return roots_; }

private:
    std::vector<std::filesystem::path> roots_;
    SnapshotCache cache_;
    struct Opened {
        CacheKey key; // as the disk cache keys a file: a copy with the same size and time differs in content
        std::shared_ptr<const Snapshot> snapshot;
    };
    std::map<std::filesystem::path, Opened> opened_; // the last few, oldest dropped
    std::vector<std::filesystem::path> order_;
};

struct McpToolResult {
    nlohmann::json structured;
    std::string text;
};

struct McpTool {
    std::string name;
    // The command it answers as (its arguments are that command's flags, named alike); empty
    // for a tool no command matches (search).
    std::string command;
    std::string description;
    nlohmann::json inputSchema;
    McpToolResult (*run)(const nlohmann::json &arguments, McpToolContext &context);
};

const std::vector<McpTool> &mcpTools();

} // namespace memlens
