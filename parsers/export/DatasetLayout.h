#pragma once
// Where an export puts each input's tables: a Hive-partitioned dataset
// OUT/rank=R/step=S/input=x<hash>/<table>.parquet. An input's seven tables share one folder, which
// appears whole by one rename (six renames, one per table folder, left an input visible in some
// tables and not others when the export was killed between them). <hash> is of the dump's resolved
// path: a re-export replaces that input's folder (a dump rewritten in place kept its old part
// beside the new), the same dump exported as FILE and inside DIR is one input (it was two, hashed
// by the path below what was exported), and shards running side by side never write one folder.
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
    std::string resolved; // the dump's own path, links and `..` resolved: its identity in a dataset
};

struct ExportInputs {
    std::vector<ExportInput> inputs;
    // What listing DIR left out or read once, as `summary DIR` says it (a FIFO or a link to
    // nothing named like a dump, a folder linked twice).
    std::vector<std::string> notes;
};

// `path` absolute, links and `..` resolved (as far as it exists).
std::string resolvedPath(const std::string &path);

// The snapshots to export: FILE itself, or every snapshot below DIR, sorted by path. Throws
// std::runtime_error naming the path when it cannot be read or holds no snapshot.
ExportInputs exportInputs(const std::string &fileOrDir);

// The I-th (1-based) of N shares of `inputs`, in order: shares differ in size by one at most,
// and shares 1…N together are every input once. Throws std::invalid_argument unless 1 ≤ I ≤ N.
std::vector<ExportInput> shareOf(const std::vector<ExportInput> &inputs, int i, int n);

// "OUT/rank=3/step=200/input=x0123456789abcdef": the folder of the input's tables.
std::string inputFolder(const std::string &out, const ExportInput &input);
// "events.parquet".
std::string tableFileName(std::string_view table);

} // namespace memlens
