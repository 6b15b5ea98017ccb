#pragma once
// `memlens export FILE|DIR --parquet OUT [--shard I/N]` as a value: the request, what it admits,
// the answer (each input's rows per table, or its error), and the answer's text and JSON.
#include "export/DatasetExport.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace memlens {

class SnapshotCache;

struct ExportRequest {
    std::string input; // a snapshot, a profiler trace, or a folder of them
    std::string out;   // the dataset's folder
    int shard = 1;     // this is share `shard` of `shards` of the sorted inputs
    int shards = 1;
    bool prune = false; // drop the inputs OUT holds of dumps below `input` (a folder) it no longer has
};

// "3/8" → (3, 8). Throws std::invalid_argument unless it is I/N with 1 ≤ I ≤ N.
std::pair<int, int> parseShard(std::string_view text);

struct ExportAnswer {
    ExportRequest request;
    size_t inputsInAll = 0; // before sharding
    std::vector<ExportedInput> inputs; // this share's, in order
    std::vector<std::string> notes;    // what listing the folder left out (exportInputs)
    std::vector<std::string> pruned;   // --prune: the dumps whose inputs were dropped
    size_t held = 0;                   // the inputs OUT holds afterwards
    size_t failed() const;
};

// Throws std::runtime_error (one line naming the path) when the input cannot be listed.
// `done` (may be empty) hears of each input as it is finished, in order.
ExportAnswer answerExport(const ExportRequest &request, const SnapshotCache *cache,
                          const std::function<void(const ExportedInput &)> &done = {});

// "rank 3 step 200  rank3_step200.pickle: 1,234,567 events, …" or the input's error.
std::string exportedInputLine(const ExportedInput &input);
// The closing line: files, rows per table, failures, where the dataset is.
std::string exportAnswerText(const ExportAnswer &answer);
nlohmann::json exportAnswerJson(const ExportAnswer &answer);

} // namespace memlens
