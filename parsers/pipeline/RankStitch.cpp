#include "pipeline/RankStitch.h"

#include "model/LoadError.h"
#include "cache/CachedSnapshot.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

namespace memlens {

std::vector<RankFile> dumpsOfRank(const RankFolder &folder, int rank)
{
    std::vector<RankFile> files;
    std::copy_if(folder.files.begin(), folder.files.end(), std::back_inserter(files), [rank](const RankFile &f) { return f.rank == rank; });
    // Of two dumps of one step, the larger first: it holds the longer window (its older entries
    // may fill the gap before the step), and the shorter one's entries are then all shared. In
    // path order the shorter could come first, and the longer was left out as "sharing no entries".
    std::vector<std::pair<RankFile, uint64_t>> sized;
    for (RankFile &f : files) {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(f.path, ec);
        sized.emplace_back(std::move(f), ec ? 0 : size);
    }
    std::stable_sort(sized.begin(), sized.end(), [](const auto &a, const auto &b) {
        return std::tie(a.first.step, b.second, a.first.path) < std::tie(b.first.step, a.second, b.first.path);
    });
    files.clear();
    for (auto &[f, size] : sized)
        files.push_back(std::move(f));
    return files;
}

namespace {

StitchedRun stitchFiles(const std::vector<RankFile> &files, const RankFolder &folder, int rank, const SnapshotCache *cache,
                        const std::atomic<bool> *cancel, const std::function<void(size_t done, size_t total)> &progress)
{
    DumpStitcher stitcher;
    std::vector<std::string> unreadable;
    size_t stitched = 0;
    for (size_t i = 0; i < files.size(); ++i) {
        if (progress)
            progress(i, files.size());
        LoadControl control;
        control.cancel = cancel;
        try {
            // The cache entry, when one is written, is finished before the next dump is read.
            const CachedSnapshot loaded = loadSnapshotCached(files[i].path, control, cache);
            stitcher.add(*loaded.snapshot, files[i].path, files[i].step);
            ++stitched;
        } catch (const LoadError &e) {
            unreadable.push_back(e.what());
        }
    }
    if (stitched == 0)
        throw LoadError(folder.folder, LoadError::kNoOffset,
                        "rank " + std::to_string(rank) + " has no dump that can be read" + (unreadable.empty() ? std::string() : " (" + unreadable.front() + ")"));
    StitchedRun run = stitcher.finish();
    for (const std::string &e : unreadable)
        run.warnings.push_back("left out: " + e);
    return run;
}

// The files by the time of their first entry, as the first stitch read them (unread ones last).
std::vector<RankFile> inTimeOrder(std::vector<RankFile> files, const StitchedRun &run)
{
    std::map<std::string, int64_t> firstTime;
    for (const auto *dumps : {&run.dumps, &run.leftOut}) {
        for (const StitchedDump &d : *dumps)
            firstTime[d.file] = d.firstTimeUs.value_or(INT64_MAX);
    }
    std::stable_sort(files.begin(), files.end(), [&](const RankFile &a, const RankFile &b) {
        const auto ta = firstTime.find(a.path), tb = firstTime.find(b.path);
        return (ta == firstTime.end() ? INT64_MAX : ta->second) < (tb == firstTime.end() ? INT64_MAX : tb->second);
    });
    return files;
}

} // namespace

StitchedRun stitchRank(const RankFolder &folder, int rank, const SnapshotCache *cache, const std::atomic<bool> *cancel,
                       const std::function<void(size_t done, size_t total)> &progress)
{
    const std::vector<RankFile> files = dumpsOfRank(folder, rank);
    StitchedRun run = stitchFiles(files, folder, rank, cache, cancel, progress);
    // A dump came before a run it followed by step (copied into the wrong folder, or another
    // run's): read again in time order, which a run's own dumps always follow.
    if (run.outOfTimeOrder)
        run = stitchFiles(inTimeOrder(files, run), folder, rank, cache, cancel, progress);
    // What listing the folder left out (a FIFO or a link to nothing named like a dump) is said
    // here too, as `summary DIR` and export say it.
    run.warnings.insert(run.warnings.end(), folder.leftOut.begin(), folder.leftOut.end());
    if (progress)
        progress(files.size(), files.size());
    return run;
}

std::string stitchedRunName(const std::string &folder, int rank)
{
    return folder + " · rank " + std::to_string(rank) + " (stitched)";
}

} // namespace memlens
