#pragma once
// Where an export puts each input's tables: a Hive-partitioned dataset
// OUT/<table>/rank=R/step=S/part-<hash>.parquet, one file per input and table, so re-runs and
// shards running in parallel into one OUT never write the same name for different inputs.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

struct ExportInput {
    std::string path;
    std::string name; // the path below the folder exported (the file's own path for a file)
    int rank = 0;     // as `summary DIR` reads it from the name; 0 when none
    int64_t step = 0; // likewise; 0 when none
    std::string source; // the absolute folder `name` is below, recorded in each table's footer
};

// The snapshots to export: FILE itself, or every snapshot below DIR, sorted by path. Throws
// std::runtime_error naming the path when it cannot be read or holds no snapshot.
std::vector<ExportInput> exportInputs(const std::string &fileOrDir);

// The I-th (1-based) of N shares of `inputs`, in order: shares differ in size by one at most,
// and shares 1…N together are every input once. Throws std::invalid_argument unless 1 ≤ I ≤ N.
std::vector<ExportInput> shareOf(const std::vector<ExportInput> &inputs, int i, int n);

// "part-0123456789abcdef.parquet": a hash of the input's name and its content checksum (size,
// first and last MiB), the same for each of its tables.
std::string partFileName(const ExportInput &input);
// "OUT/events/rank=3/step=200/" followed by `part`.
std::string partPath(const std::string &out, std::string_view table, const ExportInput &input, const std::string &part);

} // namespace memlens
