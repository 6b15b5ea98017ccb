#include "mcp/McpTools.h"

#include "model/LoadError.h"

#include <algorithm>

namespace memlens {

namespace fs = std::filesystem;

namespace {
constexpr size_t kKeptSnapshots = 4; // a 1 GB run decodes to a few GB: keep few
}

McpToolContext::McpToolContext(std::vector<fs::path> roots)
{
    for (const fs::path &root : roots) {
        std::error_code ec;
        const fs::path canonical = fs::canonical(root, ec);
        if (!ec)
            roots_.push_back(canonical);
    }
}

fs::path McpToolContext::allowedPath(const std::string &path, const std::string &argument) const
{
    if (path.empty())
        throw McpArgumentError(argument + ": an empty path");
    std::error_code ec;
    const fs::path canonical = fs::canonical(path, ec);
    if (ec)
        throw McpArgumentError(argument + ": " + path + ": " + ec.message());
    for (const fs::path &root : roots_) {
        const auto [r, c] = std::mismatch(root.begin(), root.end(), canonical.begin(), canonical.end());
        if (r == root.end())
            return canonical;
    }
    throw McpArgumentError(argument + ": " + path + " is outside the directories this server may read (--root)");
}

std::shared_ptr<const Snapshot> McpToolContext::snapshot(const fs::path &path, const std::string &argument)
{
    std::error_code ec;
    const auto modified = fs::last_write_time(path, ec);
    const uint64_t size = ec ? 0 : fs::file_size(path, ec);
    if (const auto it = opened_.find(path); it != opened_.end() && !ec && it->second.modified == modified && it->second.size == size)
        return it->second.snapshot;
    std::shared_ptr<const Snapshot> snapshot;
    try {
        snapshot = loadSnapshotCached(path.string(), {}, &cache_).snapshot;
    } catch (const LoadError &e) {
        throw McpArgumentError(argument + ": " + e.what());
    }
    opened_[path] = {modified, size, snapshot};
    order_.erase(std::remove(order_.begin(), order_.end(), path), order_.end());
    order_.push_back(path);
    if (order_.size() > kKeptSnapshots) {
        opened_.erase(order_.front());
        order_.erase(order_.begin());
    }
    return snapshot;
}

} // namespace memlens
