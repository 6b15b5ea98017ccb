#include "mcp/McpTools.h"

#include "model/LoadError.h"

#include <algorithm>

namespace memlens {

namespace fs = std::filesystem;

namespace {
constexpr size_t kKeptSnapshots = 4; // a 1 GB run decodes to a few GB: keep few
constexpr size_t kMaxPathBytes = 4096; // PATH_MAX
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

bool McpToolContext::withinRoots(const fs::path &path) const
{
    std::error_code ec;
    const fs::path canonical = fs::canonical(path, ec);
    if (ec)
        return false;
    return std::any_of(roots_.begin(), roots_.end(), [&](const fs::path &root) {
        return std::mismatch(root.begin(), root.end(), canonical.begin(), canonical.end()).first == root.end();
    });
}

fs::path McpToolContext::allowedPath(const std::string &path, const std::string &argument, PathKind kind) const
{
    if (path.empty())
        throw McpArgumentError(argument + ": an empty path");
    // A C string ends at the first NUL: what would be opened is not what was asked for.
    if (path.find('\0') != std::string::npos)
        throw McpArgumentError(argument + ": the path holds a NUL byte");
    if (path.size() > kMaxPathBytes)
        throw McpArgumentError(argument + ": the path is longer than " + std::to_string(kMaxPathBytes) + " bytes");
    std::error_code ec;
    const fs::path canonical = fs::canonical(path, ec);
    if (ec)
        throw McpArgumentError(argument + ": " + path + ": " + ec.message());
    if (!withinRoots(canonical))
        throw McpArgumentError(argument + ": " + path + " is outside the directories this server may read (--root)");
    const fs::file_status status = fs::status(canonical, ec);
    const bool folder = fs::is_directory(status), file = fs::is_regular_file(status);
    if (!folder && !file)
        throw McpArgumentError(argument + ": " + path + " is not a regular file (a FIFO, a device or a socket)");
    if (kind == PathKind::File && folder)
        throw McpArgumentError(argument + ": " + path + " is a folder; this tool reads one snapshot file");
    if (kind == PathKind::Folder && !folder)
        throw McpArgumentError(argument + ": " + path + " is not a folder of dumps");
    return canonical;
}

RankFolder McpToolContext::rankFolder(const fs::path &folder) const
{
    RankFolder found = findRankFiles(folder.string());
    const size_t before = found.files.size();
    // A symlink in the folder may lead anywhere: each file is resolved and checked like a path.
    std::erase_if(found.files, [&](const RankFile &f) {
        std::error_code ec;
        return !withinRoots(f.path) || !fs::is_regular_file(fs::status(f.path, ec));
    });
    if (found.files.size() != before) {
        found.notes.push_back(std::to_string(before - found.files.size()) +
                              " files left out: they lead outside the directories this server may read, or are not regular files");
        std::vector<std::optional<int64_t>> steps;
        for (const RankFile &f : found.files) {
            if (std::find(steps.begin(), steps.end(), f.step) == steps.end())
                steps.push_back(f.step);
        }
        std::sort(steps.begin(), steps.end());
        found.steps = steps;
    }
    return found;
}

std::shared_ptr<const Snapshot> McpToolContext::snapshot(const fs::path &path, const std::string &argument)
{
    const std::optional<CacheKey> key = SnapshotCache::keyOf(path.string());
    if (const auto it = opened_.find(path); it != opened_.end() && key && it->second.key == *key)
        return it->second.snapshot;
    std::shared_ptr<const Snapshot> snapshot;
    try {
        snapshot = loadSnapshotCached(path.string(), {}, &cache_).snapshot;
    } catch (const LoadError &e) {
        throw McpArgumentError(argument + ": " + e.what());
    }
    if (key)
        opened_[path] = {*key, snapshot};
    else
        opened_.erase(path);
    order_.erase(std::remove(order_.begin(), order_.end(), path), order_.end());
    order_.push_back(path);
    if (order_.size() > kKeptSnapshots) {
        opened_.erase(order_.front());
        order_.erase(order_.begin());
    }
    return snapshot;
}

} // namespace memlens
