#pragma once
// One input's tables into a dataset: the file is loaded (through the cache when given), its six
// tables written into a hidden staging folder beside the input's place, which then becomes (or
// takes the place of) the input's folder in one rename, so a reader never sees half an input,
// even of an export killed at any moment; staging folders of exports that died are swept.
#include "export/DatasetLayout.h"
#include "export/FleetTables.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace memlens {

class SnapshotCache;

struct ExportedInput {
    ExportInput input;
    std::array<int64_t, kFleetTables.size()> rows{}; // by FleetTable
    std::string error; // "" when written; else one line naming the file
};

// Why a decoded file has nothing the tables hold (a memory-timeline export), or nothing.
std::optional<std::string> whyNotExportable(const Snapshot &snapshot);

ExportedInput exportInput(const ExportInput &input, const std::string &out, const SnapshotCache *cache,
                          const std::atomic<bool> *cancel = nullptr);

// Throws std::runtime_error, one line naming `out`, when no dataset can be written there: asked
// before any input is decoded (an unwritable OUT was found after decoding every input).
void checkDatasetFolder(const std::string &out);

} // namespace memlens
