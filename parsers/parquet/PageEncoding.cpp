#include "parquet/PageEncoding.h"

namespace memlens::parquet {

void appendVarint(std::string &out, uint64_t value)
{
    while (value >= 0x80) {
        out.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<char>(value));
}

void appendLittleEndian(std::string &out, uint64_t value, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

void appendBitPackedRun(std::string &out, const uint32_t *values, size_t count, int width)
{
    const size_t groups = (count + 7) / 8;
    appendVarint(out, (static_cast<uint64_t>(groups) << 1) | 1);
    out.reserve(out.size() + groups * static_cast<size_t>(width));
    uint64_t pending = 0;
    int bits = 0;
    for (size_t i = 0; i < groups * 8; ++i) {
        pending |= static_cast<uint64_t>(i < count ? values[i] : 0) << bits;
        bits += width;
        while (bits >= 8) {
            out.push_back(static_cast<char>(pending & 0xff));
            pending >>= 8;
            bits -= 8;
        }
    }
}

void appendPlainString(std::string &out, std::string_view value)
{
    appendLittleEndian(out, value.size(), 4);
    out.append(value);
}

int bitWidthFor(uint64_t count)
{
    int width = 1;
    while (width < 32 && (uint64_t{1} << width) < count)
        ++width;
    return width;
}

} // namespace memlens::parquet
