#include "parquet/ThriftCompactReader.h"

namespace memlens::parquet {

namespace {
constexpr int kMaxDepth = 32;
}

uint8_t ThriftCompactReader::byte()
{
    if (position_ >= bytes_.size())
        fail("Thrift data ends early");
    return static_cast<uint8_t>(bytes_[position_++]);
}

uint64_t readVarint(std::string_view data, size_t &position, uint64_t offset, std::string_view what)
{
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (position >= data.size())
            throw ParquetFormatError(offset + position, std::string(what) + " ends early");
        const auto b = static_cast<uint8_t>(data[position++]);
        value |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80))
            return value;
    }
    throw ParquetFormatError(offset + position, "a varint longer than 10 bytes in " + std::string(what));
}

uint64_t ThriftCompactReader::varint()
{
    return readVarint(bytes_, position_, base_, "Thrift data");
}

int64_t ThriftCompactReader::integer()
{
    const uint64_t z = varint();
    return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}

ThriftCompactReader::Field ThriftCompactReader::field(int16_t lastId)
{
    const uint8_t header = byte();
    if (header == 0)
        return {ThriftType::Struct, 0, true};
    Field f;
    f.type = static_cast<ThriftType>(header & 0x0f);
    const int delta = header >> 4;
    const int64_t id = delta ? lastId + delta : integer();
    if (id < INT16_MIN || id > INT16_MAX)
        fail("a Thrift field id out of range");
    f.id = static_cast<int16_t>(id);
    return f;
}

std::string_view ThriftCompactReader::binary()
{
    const uint64_t length = varint();
    if (length > bytes_.size() - position_)
        fail("a Thrift string longer than the data left");
    const std::string_view value = bytes_.substr(position_, length);
    position_ += length;
    return value;
}

ThriftCompactReader::ListHeader ThriftCompactReader::list()
{
    const uint8_t header = byte();
    ListHeader h;
    h.element = static_cast<ThriftType>(header & 0x0f);
    uint64_t size = header >> 4;
    if (size == 15)
        size = varint();
    // Every element takes a byte at least: a longer list than the bytes left is a lie.
    if (size > bytes_.size() - position_)
        fail("a Thrift list longer than the data left");
    h.size = static_cast<uint32_t>(size);
    return h;
}

void ThriftCompactReader::skip(ThriftType type, int depth)
{
    if (depth > kMaxDepth)
        fail("Thrift structures nested too deep");
    switch (type) {
    case ThriftType::True:
    case ThriftType::False: return;
    case ThriftType::Byte: byte(); return;
    case ThriftType::I16:
    case ThriftType::I32:
    case ThriftType::I64: varint(); return;
    case ThriftType::Double:
        for (int i = 0; i < 8; ++i)
            byte();
        return;
    case ThriftType::Binary: binary(); return;
    case ThriftType::List: {
        const ListHeader h = list();
        for (uint32_t i = 0; i < h.size; ++i)
            h.element == ThriftType::True || h.element == ThriftType::False ? void(byte()) : skip(h.element, depth + 1);
        return;
    }
    case ThriftType::Struct: {
        int16_t last = 0;
        for (Field f = field(last); !f.stop; f = field(last)) {
            skip(f.type, depth + 1);
            last = f.id;
        }
        return;
    }
    }
    fail("an unknown Thrift type " + std::to_string(static_cast<int>(type)));
}

} // namespace memlens::parquet
