#pragma once
// One column chunk of a row group as Parquet bytes: an optional dictionary page, one data page
// (definition levels, then PLAIN values or dictionary indices), each zstd-compressed, and the
// chunk's metadata (encodings, sizes, statistics) that the footer lists.
#include "parquet/ColumnValues.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlens::parquet {

struct ChunkStatistics {
    int64_t nullCount = 0;
    std::optional<std::string> min; // PLAIN bytes of the smallest value; none when all are null
    std::optional<std::string> max;
};

struct EncodedChunk {
    std::string bytes;            // the pages with their headers
    size_t dictionaryPageSize = 0; // bytes of the dictionary page with its header; 0 without one
    int64_t uncompressedSize = 0; // the pages' uncompressed sizes with their headers
    std::vector<int32_t> encodings;
    ChunkStatistics statistics;
};

EncodedChunk encodeColumnChunk(const ColumnSpec &spec, const ColumnValues &values, int zstdLevel);

// Parquet's physical type number for a column kind.
int32_t physicalType(ColumnKind kind);

} // namespace memlens::parquet
