#include "ranks/RankFiles.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <regex>
#include <stdexcept>
#include <tuple>

#include <sys/stat.h>

namespace memlens {

namespace fs = std::filesystem;

namespace {

bool endsWith(const std::string &s, const std::string &tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::optional<int64_t> number(const std::string &digits)
{
    if (digits.empty() || digits.size() > 15)
        return std::nullopt;
    return std::stoll(digits);
}

} // namespace

bool isSnapshotFileName(const std::string &name)
{
    if (endsWith(name, ".summary.json"))
        return false;
    for (const char *ext : {".pickle", ".pkl", ".pickle.zst", ".pkl.zst", ".pickle.gz", ".pkl.gz"}) {
        if (endsWith(name, ext))
            return true;
    }
    return name.find("memory_snapshot") != std::string::npos && !endsWith(name, ".json");
}

RankNaming parseRankPath(const std::string &path)
{
    const fs::path p(path);
    const std::string name = p.filename().string();
    const std::string dir = p.parent_path().filename().string();
    RankNaming n;
    std::smatch m;
    // The step from the folder: torchtitan's iteration_N / step_000000000N, "_exit" on OOM.
    static const std::regex stepDir(R"(^(?:iteration|step)_(\d+)(_exit)?$)");
    if (std::regex_match(dir, m, stepDir)) {
        n.step = number(m[1]);
        n.atExit = m[2].matched;
    }
    // Named schemes first, most specific first; the rank is the first group, a step the second.
    static const std::vector<std::pair<std::regex, bool>> schemes = {
        {std::regex(R"(^(\d+)_step_(\d+)\.)"), true},                        // torchtitan since 2026-05
        {std::regex(R"(^rank(\d+)_memory_snapshot\.)"), false},              // torchtitan before
        {std::regex(R"(^oom_rank-(\d+)_)"), false},                          // Megatron-LM OOM observer
        {std::regex(R"(^memory_trace_(\d+)\.)"), false},                     // Megatron-Bridge
        {std::regex(R"(^snapshot_\d{4}-\d\d-\d\d-\d\d-\d\d_(\d+)\.)"), false}, // MindSpeed
        {std::regex(R"(^rank(\d+)\.(\d+)\..*memory_snapshot)"), true},       // Composer: rank, batch
        {std::regex(R"(rank[-_]?(\d+))", std::regex::icase), false},         // generic
        {std::regex(R"(_(\d+)\.[^0-9])"), false},                            // generic "_R."
    };
    for (const auto &[re, hasStep] : schemes) {
        if (std::regex_search(name, m, re)) {
            if (auto r = number(m[1]); r && *r <= INT32_MAX)
                n.rank = static_cast<int>(*r);
            if (hasStep && !n.step)
                n.step = number(m[2]);
            break;
        }
    }
    return n;
}

std::vector<RankFile> RankFolder::filesOfStep(const std::optional<int64_t> &step) const
{
    std::vector<RankFile> out;
    for (const RankFile &f : files) {
        if (f.step == step)
            out.push_back(f);
    }
    return out;
}

RankFolder findRankFiles(const std::string &folder)
{
    RankFolder result;
    result.folder = folder;
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        throw std::runtime_error(folder + ": not a folder");
    std::vector<std::string> paths;
    // Step folders may be links (a job's storage laid out by symlinks): followed, each folder read
    // once, so a link back up the tree is no loop. A dump's name on anything but a regular file
    // (a FIFO, a link to nothing) is said, not skipped in silence.
    std::set<std::pair<dev_t, ino_t>> seen;
    auto firstVisit = [&](const fs::path &dir) {
        struct stat st {};
        return ::stat(dir.c_str(), &st) == 0 && seen.insert({st.st_dev, st.st_ino}).second;
    };
    firstVisit(folder);
    fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied | fs::directory_options::follow_directory_symlink, ec), end;
    if (ec)
        throw std::runtime_error(folder + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw std::runtime_error(folder + ": " + ec.message());
        std::error_code fileEc;
        if (it->is_directory(fileEc)) {
            if (!firstVisit(it->path())) {
                it.disable_recursion_pending();
                result.notes.push_back(it->path().string() + ": a folder already read (a link to it), read once");
            }
            continue;
        }
        if (!isSnapshotFileName(it->path().filename().string()))
            continue;
        if (it->is_regular_file(fileEc))
            paths.push_back(it->path().string());
        else if (it->is_symlink(fileEc) && !it->exists(fileEc))
            result.leftOut.push_back(it->path().string() + ": a link to nothing, left out");
        else
            result.leftOut.push_back(it->path().string() + ": not a regular file (a FIFO or a device), left out");
    }
    result.notes.insert(result.notes.end(), result.leftOut.begin(), result.leftOut.end());
    std::sort(paths.begin(), paths.end());
    bool allNamed = true;
    for (const std::string &path : paths) {
        const RankNaming n = parseRankPath(path);
        RankFile f{path, n.rank.value_or(0), n.rank.has_value(), n.step, n.atExit};
        allNamed = allNamed && f.rankFromName;
        result.files.push_back(f);
    }
    // Without a rank in every name, ranks are numbered in file order within each step.
    if (!allNamed && !result.files.empty()) {
        std::map<std::optional<int64_t>, int> next;
        for (RankFile &f : result.files) {
            f.rank = next[f.step]++;
            f.rankFromName = false;
        }
        result.notes.push_back("ranks numbered in file order: not every file name says its rank");
    }
    std::stable_sort(result.files.begin(), result.files.end(), [](const RankFile &a, const RankFile &b) {
        return std::tie(a.step, a.rank) < std::tie(b.step, b.rank);
    });
    for (const RankFile &f : result.files) {
        if (result.steps.empty() || result.steps.back() != f.step)
            result.steps.push_back(f.step);
    }
    for (size_t i = 1; i < result.files.size(); ++i) {
        if (result.files[i].step == result.files[i - 1].step && result.files[i].rank == result.files[i - 1].rank)
            result.notes.push_back("rank " + std::to_string(result.files[i].rank) + " appears twice: " + result.files[i - 1].path +
                                   " and " + result.files[i].path);
    }
    return result;
}

std::optional<WorldSize> worldSizeBeside(const std::string &path)
{
    const RankNaming self = parseRankPath(path);
    if (!self.rank)
        return std::nullopt;
    const fs::path folder = fs::path(path).parent_path();
    std::error_code ec;
    fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, fs::directory_options::skip_permission_denied, ec), end;
    std::set<int> ranks;
    for (; !ec && it != end; it.increment(ec)) {
        std::error_code fileEc;
        if (!it->is_regular_file(fileEc) || !isSnapshotFileName(it->path().filename().string()))
            continue;
        const RankNaming n = parseRankPath(it->path().string());
        if (n.rank && n.step == self.step)
            ranks.insert(*n.rank);
    }
    if (ranks.size() < 2)
        return std::nullopt;
    return WorldSize{static_cast<int>(ranks.size()), std::to_string(ranks.size()) + " rank snapshots beside it in " +
                                                          (folder.empty() ? std::string(".") : folder.string())};
}

} // namespace memlens
