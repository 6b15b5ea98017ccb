#pragma once
// The tables `memlens export --parquet` writes for each input file, with their columns. Column
// names are `summary --json`'s, so one vocabulary serves the CLI, MCP and SQL over the dataset.
#include "parquet/ColumnValues.h"

#include <array>
#include <string_view>
#include <vector>

namespace memlens {

struct Document;

enum class FleetTable { Snapshots, Steps, Events, Stacks, LiveAtPeak, Pools };
inline constexpr std::array<FleetTable, 6> kFleetTables{FleetTable::Snapshots, FleetTable::Steps, FleetTable::Events,
                                                       FleetTable::Stacks, FleetTable::LiveAtPeak, FleetTable::Pools};

std::string_view fleetTableName(FleetTable table); // "snapshots", "live_at_peak", …
const std::vector<parquet::ColumnSpec> &fleetTableColumns(FleetTable table);

namespace parquet {
class ParquetFileWriter;
}

// Writes `document`'s rows of `table`; `file` is the name the snapshots table gives the input.
void writeFleetTable(FleetTable table, const Document &document, const std::string &file, parquet::ParquetFileWriter &out);

} // namespace memlens
