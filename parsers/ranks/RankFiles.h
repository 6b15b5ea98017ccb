#pragma once
// Finding the per-rank snapshots of a distributed run in a folder: which files are snapshots,
// which rank and step each belongs to (from the naming schemes of torchtitan, Megatron-LM,
// Megatron-Bridge, MindSpeed and Composer, then generic "rank3" / "_3." patterns), and the
// grouping by step.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct RankFile {
    std::string path;
    int rank = 0;
    bool rankFromName = false;  // false: numbered in file order
    std::optional<int64_t> step; // training step or iteration, when the path says
    bool atExit = false;         // in torchtitan's "…_exit" folder: written when the run died
};

struct RankFolder {
    std::string folder;
    std::vector<RankFile> files;        // every snapshot found, by step then rank
    std::vector<std::optional<int64_t>> steps; // the distinct steps, ascending (nullopt first)
    std::vector<std::string> notes;     // what the user should know (ranks from file order, …)
    std::vector<std::string> leftOut;   // of those, the names of dumps that are no file to read (a
                                        // FIFO, a link to nothing): what any reader of the folder says

    // The files of one step, by rank.
    std::vector<RankFile> filesOfStep(const std::optional<int64_t> &step) const;
    // The latest step (nullopt when no file names one).
    std::optional<int64_t> latestStep() const { return steps.empty() ? std::nullopt : steps.back(); }
};

// Whether `name` (a file name, no folder) looks like a snapshot memlens reads.
bool isSnapshotFileName(const std::string &name);

// What the path says of rank and step; rank unset when nothing matches.
struct RankNaming {
    std::optional<int> rank;
    std::optional<int64_t> step;
    bool atExit = false;
};
RankNaming parseRankPath(const std::string &path);

// Scans `folder` recursively (symlinked files followed, symlinked folders not). Throws
// std::runtime_error naming the folder when it cannot be read.
RankFolder findRankFiles(const std::string &folder);

// The world size a snapshot's siblings show: when its name carries a rank, the distinct ranks
// of the same step among the snapshots in its own folder (not below it); none under two.
struct WorldSize {
    int ranks = 0;
    std::string how;
};
std::optional<WorldSize> worldSizeBeside(const std::string &path);

} // namespace memlens
