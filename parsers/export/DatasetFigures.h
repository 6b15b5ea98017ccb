#pragma once
// A Parquet dataset `memlens export` wrote, read back as the rank × step figures of its dumps:
// from the snapshots table alone, so a fleet too large to decode on a laptop is still looked at.
// Each dump gives its busiest device's peaks, as `summary DIR` does. The files are untrusted.
#include "ranks/RankFiles.h"
#include "ranks/RankSummary.h"

#include <string>
#include <vector>

namespace memlens {

struct DatasetFigures {
    RankFolder folder;                // the dumps, rank and step from the partitions; notes for the user
    std::vector<RankFigures> figures; // one per dump, in the folder's order
    std::string source;               // the folder the dumps were exported from ("" when not recorded)
    bool sourceAtHand = false;        // the dumps are there: they can be opened and stitched
};

// The key of the Parquet footer's metadata that records the exported folder.
inline constexpr const char *kDatasetSourceKey = "memlens.source";

// One input's folder in a dataset and the dump its snapshots table names (the footer's source and
// the rows' file, joined); `dump` empty when that part cannot be read.
struct DatasetInput {
    std::string folder;
    std::string dump;
};
// Every input folder `dir` holds (staging folders are not inputs yet), each part's footer read.
std::vector<DatasetInput> datasetInputs(const std::string &dir);
// How many there are, from the listing alone.
size_t datasetInputCount(const std::string &dir);

// Whether `dir` is such a dataset: it has snapshots/rank=R/step=S/*.parquet.
bool isFleetDataset(const std::string &dir);
// Throws std::runtime_error (one line naming the file) when a part cannot be read.
DatasetFigures readDatasetFigures(const std::string &dir);

} // namespace memlens
