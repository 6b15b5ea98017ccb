#pragma once
// A Parquet file written row group by row group: rows go into column buffers, every
// `rowGroupRows` rows the buffers become one row group of zstd pages, and finish() writes the
// footer (schema, row groups, statistics, column orders). Memory stays one row group's.
//
// Writes to `path` as given: callers that publish a file write a temporary name and rename it.
#include "parquet/ColumnChunkEncoder.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memlens::parquet {

class ParquetFileWriter;

// Fills one row, column by column in schema order; end() closes the row.
class RowBuilder {
public:
    explicit RowBuilder(ParquetFileWriter &writer) : writer_(writer) {}
    RowBuilder &integer(int64_t value);
    RowBuilder &real(double value);
    RowBuilder &boolean(bool value);
    RowBuilder &string(std::string_view value);
    RowBuilder &null();
    RowBuilder &integer(std::optional<int64_t> value) { return value ? integer(*value) : null(); }
    RowBuilder &optionalString(const std::optional<std::string> &value) { return value ? string(*value) : null(); }
    void end();

private:
    ColumnValues &next(bool present);
    ParquetFileWriter &writer_;
    size_t column_ = 0;
};

struct ParquetOptions {
    size_t rowGroupRows = size_t{1} << 19;
    int zstdLevel = 1;
    unsigned threads = 0; // column chunks encoded at once; 0: one per core
    std::vector<std::pair<std::string, std::string>> metadata; // the footer's key_value_metadata
};

class ParquetFileWriter {
public:
    // Throws std::runtime_error naming `path` when it cannot be created.
    ParquetFileWriter(std::string path, std::vector<ColumnSpec> schema, ParquetOptions options = {});
    ~ParquetFileWriter();
    ParquetFileWriter(const ParquetFileWriter &) = delete;
    ParquetFileWriter &operator=(const ParquetFileWriter &) = delete;

    RowBuilder row() { return RowBuilder(*this); }

    // Columnar filling, for tables made from columns (the events): append up to roomInRowGroup()
    // values to every column directly (each ColumnValues' `rows` included), then commitRows().
    ColumnValues &column(size_t c) { return columns_.at(c); }
    size_t roomInRowGroup() const { return options_.rowGroupRows - pendingRows_; }
    // Throws std::logic_error unless every column grew by `rows`.
    void commitRows(size_t rows);
    // Flushes the last row group, writes the footer and closes the file. Throws on I/O errors.
    void finish();
    int64_t rows() const { return rowsWritten_ + static_cast<int64_t>(pendingRows_); }

private:
    friend class RowBuilder;
    struct ChunkMeta {
        int64_t dataPageOffset = 0;
        std::optional<int64_t> dictionaryPageOffset;
        int64_t compressedSize = 0;
        int64_t uncompressedSize = 0;
        int64_t values = 0;
        std::vector<int32_t> encodings;
        ChunkStatistics statistics;
    };
    struct RowGroupMeta {
        std::vector<ChunkMeta> chunks;
        int64_t rows = 0;
        int64_t bytes = 0;
    };

    void endRow();
    void flushRowGroup();
    std::vector<EncodedChunk> encodeRowGroup() const; // on several cores
    void write(const std::string &bytes);
    std::string footer() const;

    std::string path_;
    std::vector<ColumnSpec> schema_;
    ParquetOptions options_;
    std::FILE *file_ = nullptr;
    int64_t offset_ = 0;
    std::vector<ColumnValues> columns_;
    size_t pendingRows_ = 0;
    int64_t rowsWritten_ = 0;
    std::vector<RowGroupMeta> rowGroups_;
};

} // namespace memlens::parquet
