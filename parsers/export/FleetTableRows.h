#pragma once
// Each fleet table's rows from one loaded document (export/FleetTables.h lists their columns).
#include <string>

namespace memlens {

struct Document;
namespace parquet {
class ParquetFileWriter;
}

void writeSnapshotRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out);
void writeStepRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out);
void writeEventRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out);
void writeStackRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out);
void writeLiveAtPeakRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out);
void writePoolRows(const Document &document, const std::string &file, parquet::ParquetFileWriter &out);

// "0,0" for mempool id (0, 0): how the events and pools tables name a pool.
std::string poolIdText(const std::pair<int64_t, int64_t> &pool);

} // namespace memlens
