#pragma once
// Reading the Parquet files memlens writes (and files like them) from untrusted bytes: flat
// schemas of INT32, INT64, BOOLEAN, DOUBLE and BYTE_ARRAY columns, required or optional, in
// version-1 data pages, PLAIN or dictionary-encoded, uncompressed or zstd. Anything else is a
// ParquetFormatError naming what is not supported; nothing the file claims is allocated before
// the bytes that back it are seen, and a column holds at most kMaxRows values.
#include "parquet/ThriftCompactReader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memlens::parquet {

struct ParquetColumnInfo {
    std::string name;
    int32_t physicalType = 0; // Parquet's Type: 0 BOOLEAN, 1 INT32, 2 INT64, 5 DOUBLE, 6 BYTE_ARRAY
    bool nullable = false;
};

class ParquetFileReader {
public:
    static constexpr int64_t kMaxRows = int64_t{1} << 24;

    // Reads the footer. `bytes` must outlive the reader. Throws ParquetFormatError.
    explicit ParquetFileReader(std::string_view bytes);

    const std::vector<ParquetColumnInfo> &columns() const { return columns_; }
    int64_t rows() const { return rows_; }
    // The footer's key_value_metadata value for `key`, if any.
    std::optional<std::string> metadata(std::string_view key) const;

    // Every value of a column, nulls as nullopt: integers (INT32, INT64, BOOLEAN as 0/1) or
    // strings. Throws ParquetFormatError when the column is missing or of another type.
    std::vector<std::optional<int64_t>> integers(std::string_view column) const;
    std::vector<std::optional<std::string>> strings(std::string_view column) const;

    struct Chunk {
        int32_t codec = 0;
        int64_t values = 0;
        int64_t start = 0; // the first page (the dictionary's when there is one)
        int64_t size = 0;  // compressed bytes of all its pages
    };

private:
    struct Values {
        std::vector<std::optional<int64_t>> integers;
        std::vector<std::optional<std::string>> strings;
    };
    Values read(std::string_view column, bool strings) const; // ParquetColumnRead.cpp
    void readFooter();

    std::string_view bytes_;
    std::vector<ParquetColumnInfo> columns_;
    int64_t rows_ = 0;
    std::vector<std::vector<Chunk>> rowGroups_; // per row group, per column
    std::vector<std::pair<std::string, std::string>> metadata_;
};

} // namespace memlens::parquet
