#pragma once
// Each fleet table's rows from one loaded document (export/FleetTables.h lists their columns).
#include "export/FleetTables.h"

#include <string>

namespace memlens {

void writeSnapshotRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);
void writeStepRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);
void writeEventRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);
void writeStackRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);
void writeLiveAtPeakRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);
void writePoolRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);
void writeLayerRows(const FleetSource &source, const std::string &file, parquet::ParquetFileWriter &out);

// "0,0" for mempool id (0, 0): how the events and pools tables name a pool.
std::string poolIdText(const std::pair<int64_t, int64_t> &pool);

} // namespace memlens
