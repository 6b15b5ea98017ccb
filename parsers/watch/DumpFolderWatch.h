#pragma once
// Following a folder a training job writes dumps into: which snapshot files have landed
// complete since the last look. An uncompressed pickle that is whole by its own bytes (PROTO
// first, STOP last) and has rested kQuiet is taken at first sight. Any other file counts once it
// is seen with the same size and modification time on two looks in a row and was last written
// `settle` ago or longer, so one written in place in pieces is taken only after it stops growing.
// A pickle cut where a STOP byte happens to end it fails to decode and is tried again once it
// changes. Temporary names ("….pickle.tmp") are not snapshot names, so they are never taken.
#include "ranks/RankFiles.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace memlens {

class DumpFolderWatch {
public:
    // The file system's clock; tests give one of their own, so that "settled" needs no waiting.
    using Clock = std::function<std::filesystem::file_time_type()>;
    DumpFolderWatch(std::string folder, std::chrono::milliseconds settle, Clock now = std::filesystem::file_time_type::clock::now);

    // New complete files, by step then rank. A file reported before is reported again only
    // after it changes (so one that looked complete but could not be read is tried again once
    // its writer goes on). Throws std::runtime_error when the folder cannot be read.
    std::vector<RankFile> poll();
    static constexpr std::chrono::milliseconds kQuiet{200};
    // The folder as the last look found it (every snapshot, complete or not).
    const RankFolder &lastScan() const { return scan_; }
    const std::string &folder() const { return folder_; }

private:
    struct Seen {
        uint64_t size = 0;
        int64_t modified = 0;
        bool reported = false;
    };
    std::string folder_;
    std::chrono::milliseconds settle_;
    Clock now_;
    std::map<std::string, Seen> seen_;
    RankFolder scan_;
};

} // namespace memlens
