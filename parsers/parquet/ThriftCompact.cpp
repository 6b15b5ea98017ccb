#include "parquet/ThriftCompact.h"

#include "parquet/PageEncoding.h"

namespace memlens::parquet {

void ThriftCompactWriter::varint(uint64_t value)
{
    appendVarint(out_, value);
}

void ThriftCompactWriter::fieldHeader(int16_t field, ThriftType type)
{
    const int delta = field - lastField_.back();
    if (delta > 0 && delta <= 15) {
        out_.push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
    } else {
        out_.push_back(static_cast<char>(type));
        varint(zigzag(field));
    }
    lastField_.back() = field;
}

void ThriftCompactWriter::i32(int16_t field, int32_t value)
{
    fieldHeader(field, ThriftType::I32);
    varint(zigzag(value));
}

void ThriftCompactWriter::i64(int16_t field, int64_t value)
{
    fieldHeader(field, ThriftType::I64);
    varint(zigzag(value));
}

void ThriftCompactWriter::binary(int16_t field, std::string_view value)
{
    fieldHeader(field, ThriftType::Binary);
    listBinary(value);
}

void ThriftCompactWriter::boolean(int16_t field, bool value)
{
    fieldHeader(field, value ? ThriftType::True : ThriftType::False);
}

void ThriftCompactWriter::beginStruct(int16_t field)
{
    fieldHeader(field, ThriftType::Struct);
    lastField_.push_back(0);
}

void ThriftCompactWriter::endStruct()
{
    out_.push_back(0); // STOP
    lastField_.pop_back();
}

void ThriftCompactWriter::beginList(int16_t field, ThriftType element, uint32_t count)
{
    fieldHeader(field, ThriftType::List);
    if (count < 15) {
        out_.push_back(static_cast<char>((count << 4) | static_cast<uint32_t>(element)));
    } else {
        out_.push_back(static_cast<char>(0xf0 | static_cast<int>(element)));
        varint(count);
    }
}

void ThriftCompactWriter::listI32(int32_t value)
{
    varint(zigzag(value));
}

void ThriftCompactWriter::listBinary(std::string_view value)
{
    varint(value.size());
    out_.append(value);
}

void ThriftCompactWriter::beginListStruct()
{
    lastField_.push_back(0);
}

std::string ThriftCompactWriter::finish()
{
    out_.push_back(0);
    return std::move(out_);
}

} // namespace memlens::parquet
