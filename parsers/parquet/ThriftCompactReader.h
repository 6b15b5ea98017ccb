#pragma once
// Reading Thrift's compact protocol from untrusted bytes (a Parquet footer or page header): every
// length is checked against what is left, nesting is bounded, and any fault is a
// ParquetFormatError at the offset where it was found.
#include "parquet/ThriftCompact.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memlens::parquet {

class ParquetFormatError : public std::runtime_error {
public:
    ParquetFormatError(uint64_t offset, const std::string &reason) : std::runtime_error(reason), offset(offset) {}
    uint64_t offset;
};

// An unsigned LEB128 varint (Thrift's integers, the hybrid encoding's run headers) at `position`
// in `data`, moving `position` past it; `what` names the data in the error, `offset` is where
// `data` starts in the file.
uint64_t readVarint(std::string_view data, size_t &position, uint64_t offset, std::string_view what);

class ThriftCompactReader {
public:
    // `base`: the offset of `bytes` in the file, for errors.
    ThriftCompactReader(std::string_view bytes, uint64_t base) : bytes_(bytes), base_(base) {}

    struct Field {
        ThriftType type = ThriftType::Struct;
        int16_t id = 0;
        bool stop = false;
    };
    // The next field of the struct being read; `lastId` is the previous field's id (0 at the start).
    Field field(int16_t lastId);
    int64_t integer(); // an i16, i32 or i64 (zigzag varint)
    std::string_view binary();
    bool boolean(const Field &f) const { return f.type == ThriftType::True; }
    struct ListHeader {
        ThriftType element = ThriftType::Struct;
        uint32_t size = 0;
    };
    ListHeader list();
    // Skips a value of `type` (structs and lists with all they hold).
    void skip(ThriftType type, int depth = 0);

    size_t consumed() const { return position_; }
    [[noreturn]] void fail(const std::string &reason) const { throw ParquetFormatError(base_ + position_, reason); }

private:
    uint8_t byte();
    uint64_t varint();

    std::string_view bytes_;
    uint64_t base_ = 0;
    size_t position_ = 0;
};

} // namespace memlens::parquet
