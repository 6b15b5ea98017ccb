#include "parquet/PageDecoding.h"

#include <algorithm>

namespace memlens::parquet {

std::vector<uint32_t> decodeHybrid(std::string_view data, int width, size_t count, uint64_t offset)
{
    if (width < 0 || width > 32)
        throw ParquetFormatError(offset, "a bit width of " + std::to_string(width));
    std::vector<uint32_t> values;
    size_t position = 0;
    while (values.size() < count) {
        const uint64_t run = readVarint(data, position, offset, "a hybrid-encoded run");
        if (run & 1) { // bit-packed: groups of 8 values in `width` bytes each
            const uint64_t groups = run >> 1;
            if (width == 0 ? groups > count : groups > (data.size() - position) / static_cast<uint64_t>(width))
                throw ParquetFormatError(offset + position, "a bit-packed run longer than its page");
            uint64_t pending = 0;
            int bits = 0;
            for (uint64_t v = 0; v < groups * 8; ++v) {
                while (bits < width) {
                    pending |= static_cast<uint64_t>(static_cast<uint8_t>(data[position++])) << bits;
                    bits += 8;
                }
                if (values.size() < count)
                    values.push_back(static_cast<uint32_t>(width ? pending & ((uint64_t{1} << width) - 1) : 0));
                pending = width ? pending >> width : pending;
                bits -= width;
            }
        } else { // a run of one value, in ceil(width / 8) bytes
            const uint64_t length = run >> 1;
            const int bytes = (width + 7) / 8;
            if (static_cast<size_t>(bytes) > data.size() - position)
                throw ParquetFormatError(offset + position, "an RLE run ends early");
            uint32_t value = 0;
            for (int b = 0; b < bytes; ++b)
                value |= static_cast<uint32_t>(static_cast<uint8_t>(data[position++])) << (8 * b);
            if (length == 0)
                throw ParquetFormatError(offset + position, "an empty RLE run");
            values.insert(values.end(), static_cast<size_t>(std::min<uint64_t>(length, count - values.size())), value);
        }
    }
    return values;
}

uint64_t PlainValues::littleEndian(int bytes)
{
    if (static_cast<size_t>(bytes) > data_.size() - position_)
        throw ParquetFormatError(offset_ + position_, "PLAIN values end early");
    uint64_t value = 0;
    for (int b = 0; b < bytes; ++b)
        value |= static_cast<uint64_t>(static_cast<uint8_t>(data_[position_++])) << (8 * b);
    return value;
}

int64_t PlainValues::integer()
{
    switch (type_) {
    case 0: { // BOOLEAN: bit-packed, least significant bit first
        if (position_ >= data_.size())
            throw ParquetFormatError(offset_ + position_, "PLAIN values end early");
        const int64_t value = (static_cast<uint8_t>(data_[position_]) >> bit_) & 1;
        if (++bit_ == 8) {
            bit_ = 0;
            ++position_;
        }
        return value;
    }
    case 1: return static_cast<int32_t>(littleEndian(4));
    case 2: return static_cast<int64_t>(littleEndian(8));
    default: throw ParquetFormatError(offset_ + position_, "not an integer column");
    }
}

std::string PlainValues::string()
{
    if (type_ != 6)
        throw ParquetFormatError(offset_ + position_, "not a string column");
    const uint64_t length = littleEndian(4);
    if (length > data_.size() - position_)
        throw ParquetFormatError(offset_ + position_, "a string longer than its page");
    std::string value(data_.substr(position_, length));
    position_ += length;
    return value;
}

} // namespace memlens::parquet
