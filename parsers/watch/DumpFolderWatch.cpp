#include "watch/DumpFolderWatch.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

namespace memlens {

namespace {
// A pickle of protocol 2 or later opens with PROTO (0x80) and ends with STOP ('.').
bool wholePickle(const std::string &path, uint64_t size)
{
    if (size < 3)
        return false;
    std::ifstream in(path, std::ios::binary);
    char first = 0, last = 0;
    in.get(first);
    in.seekg(static_cast<std::streamoff>(size - 1));
    in.get(last);
    return in && static_cast<unsigned char>(first) == 0x80 && last == '.';
}
} // namespace

DumpFolderWatch::DumpFolderWatch(std::string folder, std::chrono::milliseconds settle, Clock now)
    : folder_(std::move(folder)), settle_(settle), now_(std::move(now))
{
}

std::vector<RankFile> DumpFolderWatch::poll()
{
    scan_ = findRankFiles(folder_);
    std::vector<RankFile> complete;
    std::map<std::string, Seen> now;
    const auto settledBefore = now_() - settle_, quietBefore = now_() - kQuiet;
    for (const RankFile &f : scan_.files) {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(f.path, ec);
        if (ec)
            continue; // gone again (renamed, deleted) since the scan
        const auto written = std::filesystem::last_write_time(f.path, ec);
        if (ec)
            continue;
        Seen seen{size, static_cast<int64_t>(written.time_since_epoch().count()), false};
        const auto it = seen_.find(f.path);
        const bool unchanged = it != seen_.end() && it->second.size == size && it->second.modified == seen.modified;
        seen.reported = unchanged && it->second.reported;
        const bool settled = unchanged && written <= settledBefore;
        if (!seen.reported && size > 0 && (settled || (written <= quietBefore && wholePickle(f.path, size)))) {
            complete.push_back(f);
            seen.reported = true;
        }
        now.emplace(f.path, seen);
    }
    seen_ = std::move(now);
    std::stable_sort(complete.begin(), complete.end(), [](const RankFile &a, const RankFile &b) { return std::tie(a.step, a.rank) < std::tie(b.step, b.rank); });
    return complete;
}

} // namespace memlens
