#pragma once
// Thrift's compact protocol, the encoding of every Parquet header and footer, as far as Parquet
// uses it: structs, i32, i64, binary, bool fields and lists. Field ids must ascend within a struct.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memlens::parquet {

enum class ThriftType : uint8_t { True = 1, False = 2, Byte = 3, I16 = 4, I32 = 5, I64 = 6, Double = 7, Binary = 8, List = 9, Struct = 12 };

class ThriftCompactWriter {
public:
    void i32(int16_t field, int32_t value);
    void i64(int16_t field, int64_t value);
    void binary(int16_t field, std::string_view value);
    void boolean(int16_t field, bool value);
    void beginStruct(int16_t field); // a struct-valued field; ends with endStruct()
    void endStruct();
    // A list field of `count` elements; each then written with the element functions below.
    void beginList(int16_t field, ThriftType element, uint32_t count);
    void listI32(int32_t value);
    void listBinary(std::string_view value);
    void beginListStruct(); // a struct element of a list; ends with endStruct()

    // The bytes so far; the outermost struct's STOP is written by finish().
    std::string finish();

private:
    void fieldHeader(int16_t field, ThriftType type);
    void varint(uint64_t value);
    static uint64_t zigzag(int64_t value) { return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63); }

    std::string out_;
    std::vector<int16_t> lastField_{0}; // per open struct, the last field id written
};

} // namespace memlens::parquet
