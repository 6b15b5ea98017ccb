#pragma once
// One input's tables into a dataset: the file is loaded (through the cache when given), each
// table written to a hidden temporary name beside its place, and all renamed into place only when
// every table is whole, so a reader never sees half an input.
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

} // namespace memlens
