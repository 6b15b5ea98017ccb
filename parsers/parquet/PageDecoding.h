#pragma once
// The page layouts of PageEncoding.h read back from untrusted bytes: the RLE / bit-packing
// hybrid and PLAIN values. Faults are ParquetFormatError at the page's offset.
#include "parquet/ThriftCompactReader.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memlens::parquet {

// `count` values of `width` bits (0…32) from the hybrid encoding at the start of `data`.
std::vector<uint32_t> decodeHybrid(std::string_view data, int width, size_t count, uint64_t offset);

// Reads PLAIN values of Parquet type `physicalType` one by one.
class PlainValues {
public:
    PlainValues(std::string_view data, int32_t physicalType, uint64_t offset) : data_(data), type_(physicalType), offset_(offset) {}
    int64_t integer();     // INT32, INT64, BOOLEAN
    std::string string();  // BYTE_ARRAY
    std::string_view rest() const { return data_.substr(position_); }

private:
    uint64_t littleEndian(int bytes);
    std::string_view data_;
    int32_t type_;
    uint64_t offset_;
    size_t position_ = 0;
    int bit_ = 0; // BOOLEAN: bits used of the current byte
};

} // namespace memlens::parquet
