#pragma once
// The tables `memlens export --parquet` writes for each input file, with their columns. Column
// names are `summary --json`'s, so one vocabulary serves the CLI, MCP and SQL over the dataset
// (`category_bytes_at_peak`'s members become `<category>_bytes_at_peak` columns).
#include "parquet/ColumnValues.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

class AllocationCategories;
class DeviceIndex;
struct DeviceSummary;
struct Snapshot;

// What the tables are made from: a snapshot and, per device with entries or segments, its index,
// categories and summary (the figures `summary --json` prints).
struct FleetDevice {
    int device = 0;
    const DeviceIndex *index = nullptr;
    const AllocationCategories *categories = nullptr;
    const DeviceSummary *summary = nullptr;
};
struct FleetSource {
    const Snapshot *snapshot = nullptr;
    std::vector<FleetDevice> devices; // ascending
};

enum class FleetTable { Snapshots, Steps, Events, Stacks, LiveAtPeak, Pools, Layers };
inline constexpr std::array<FleetTable, 7> kFleetTables{FleetTable::Snapshots, FleetTable::Steps,      FleetTable::Events, FleetTable::Stacks,
                                                       FleetTable::LiveAtPeak, FleetTable::Pools, FleetTable::Layers};

std::string_view fleetTableName(FleetTable table); // "snapshots", "live_at_peak", …
const std::vector<parquet::ColumnSpec> &fleetTableColumns(FleetTable table);

namespace parquet {
class ParquetFileWriter;
}

// Writes `source`'s rows of `table`; `file` is the name every row gives the input.
void writeFleetTable(FleetTable table, const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);

} // namespace memlens
