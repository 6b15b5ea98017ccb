#include "watch/DumpFolderWatch.h"

#include <algorithm>
#include <filesystem>
#include <tuple>

namespace memlens {

DumpFolderWatch::DumpFolderWatch(std::string folder, std::chrono::milliseconds settle, Clock now)
    : folder_(std::move(folder)), settle_(settle), now_(std::move(now))
{
}

std::vector<RankFile> DumpFolderWatch::poll()
{
    scan_ = findRankFiles(folder_);
    std::vector<RankFile> complete;
    std::map<std::string, Seen> now;
    const auto settledBefore = now_() - settle_;
    for (const RankFile &f : scan_.files) {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(f.path, ec);
        if (ec)
            continue; // gone again (renamed, deleted) since the scan
        const auto written = std::filesystem::last_write_time(f.path, ec);
        if (ec)
            continue;
        Seen seen{size, static_cast<int64_t>(written.time_since_epoch().count()), false};
        if (const auto it = seen_.find(f.path); it != seen_.end() && it->second.size == size && it->second.modified == seen.modified) {
            seen.reported = it->second.reported;
            if (!seen.reported && size > 0 && written <= settledBefore) {
                complete.push_back(f);
                seen.reported = true;
            }
        }
        now.emplace(f.path, seen);
    }
    seen_ = std::move(now);
    std::stable_sort(complete.begin(), complete.end(), [](const RankFile &a, const RankFile &b) { return std::tie(a.step, a.rank) < std::tie(b.step, b.rank); });
    return complete;
}

} // namespace memlens
