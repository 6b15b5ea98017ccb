#pragma once
// The byte layouts inside Parquet pages: PLAIN values, the RLE / bit-packing hybrid that carries
// definition levels and dictionary indices, and the little-endian statistics values.
#include <cstdint>
#include <string>
#include <string_view>

namespace memlens::parquet {

void appendVarint(std::string &out, uint64_t value);
void appendLittleEndian(std::string &out, uint64_t value, int bytes);
// One bit-packed run of the hybrid encoding holding `count` values of `width` bits (1…32),
// padded with zeros to a multiple of eight values (readers stop at the page's value count).
void appendBitPackedRun(std::string &out, const uint32_t *values, size_t count, int width);
// PLAIN BYTE_ARRAY: a 4-byte length, then the bytes.
void appendPlainString(std::string &out, std::string_view value);
// The bits needed for indices below `count` (at least 1).
int bitWidthFor(uint64_t count);

} // namespace memlens::parquet
