#include "parquet/ParquetColumnRead.h"

#include "parquet/PageDecoding.h"

#include <zstd.h>

#include <algorithm>

namespace memlens::parquet {

namespace {

using Field = ThriftCompactReader::Field;

constexpr uint64_t kMaxPageBytes = uint64_t{256} << 20;

struct PageHeader {
    int32_t type = -1; // 0 data (v1), 2 dictionary, 3 data (v2)
    int64_t uncompressed = -1;
    int64_t compressed = -1;
    int64_t values = -1;
    int32_t encoding = -1;
    size_t headerBytes = 0;
};

PageHeader readPageHeader(std::string_view bytes, uint64_t offset)
{
    ThriftCompactReader r(bytes, offset);
    PageHeader page;
    int16_t last = 0;
    for (Field f = r.field(last); !f.stop; f = r.field(last)) {
        last = f.id;
        if (f.id == 1)
            page.type = static_cast<int32_t>(r.integer());
        else if (f.id == 2)
            page.uncompressed = r.integer();
        else if (f.id == 3)
            page.compressed = r.integer();
        else if ((f.id == 5 || f.id == 7) && f.type == ThriftType::Struct) {
            int16_t inner = 0;
            for (Field g = r.field(inner); !g.stop; g = r.field(inner)) {
                inner = g.id;
                if (g.id == 1)
                    page.values = r.integer();
                else if (g.id == 2)
                    page.encoding = static_cast<int32_t>(r.integer());
                else
                    r.skip(g.type);
            }
        } else {
            r.skip(f.type);
        }
    }
    page.headerBytes = r.consumed();
    if (page.uncompressed < 0 || page.compressed < 0 || page.values < 0 || static_cast<uint64_t>(page.uncompressed) > kMaxPageBytes)
        throw ParquetFormatError(offset, "a page header with sizes or a value count out of range");
    return page;
}

std::string pageBody(std::string_view compressed, const PageHeader &page, int32_t codec, uint64_t offset)
{
    if (codec == 0) {
        if (page.uncompressed != page.compressed)
            throw ParquetFormatError(offset, "an uncompressed page whose two sizes differ");
        return std::string(compressed);
    }
    if (codec != 6)
        throw ParquetFormatError(offset, "compression codec " + std::to_string(codec) + " is not supported (memlens reads zstd and none)");
    std::string out(static_cast<size_t>(page.uncompressed), '\0');
    const size_t n = ZSTD_decompress(out.data(), out.size(), compressed.data(), compressed.size());
    if (ZSTD_isError(n) || n != out.size())
        throw ParquetFormatError(offset, "a zstd page that does not decompress to its stated size");
    return out;
}

// Reads one value of the column's type from `plain` into `out`.
void appendValue(PlainValues &plain, bool strings, std::vector<std::optional<int64_t>> &ints, std::vector<std::optional<std::string>> &texts)
{
    if (strings)
        texts.emplace_back(plain.string());
    else
        ints.emplace_back(plain.integer());
}

} // namespace

ParquetFileReader::Values ParquetFileReader::read(std::string_view name, bool strings) const
{
    const auto it = std::find_if(columns_.begin(), columns_.end(), [&](const ParquetColumnInfo &c) { return c.name == name; });
    if (it == columns_.end())
        throw ParquetFormatError(0, "no column " + std::string(name));
    const ParquetColumnInfo &column = *it;
    if (strings != (column.physicalType == 6) || column.physicalType == 5 || column.physicalType > 6 || column.physicalType == 3 ||
        column.physicalType == 4)
        throw ParquetFormatError(0, "the column " + column.name + " is not of the type asked for");
    const size_t index = static_cast<size_t>(it - columns_.begin());
    const uint64_t dataEnd = bytes_.size() - 8; // the footer follows; its length was checked
    Values out;
    for (const auto &group : rowGroups_) {
        const Chunk &chunk = group[index];
        if (chunk.start < 4 || chunk.size < 0 || static_cast<uint64_t>(chunk.start) > dataEnd ||
            static_cast<uint64_t>(chunk.size) > dataEnd - static_cast<uint64_t>(chunk.start))
            throw ParquetFormatError(static_cast<uint64_t>(std::max<int64_t>(0, chunk.start)), "a column chunk outside the file");
        const std::string_view bytes = bytes_.substr(static_cast<size_t>(chunk.start), static_cast<size_t>(chunk.size));
        std::vector<std::optional<int64_t>> dictionaryInts;
        std::vector<std::optional<std::string>> dictionaryTexts;
        int64_t seen = 0;
        size_t position = 0;
        while (seen < chunk.values) {
            const uint64_t offset = static_cast<uint64_t>(chunk.start) + position;
            if (position >= bytes.size())
                throw ParquetFormatError(offset, "a column chunk with fewer values than it states");
            const PageHeader page = readPageHeader(bytes.substr(position), offset);
            position += page.headerBytes;
            if (static_cast<uint64_t>(page.compressed) > bytes.size() - position)
                throw ParquetFormatError(offset, "a page longer than its column chunk");
            const std::string body = pageBody(bytes.substr(position, static_cast<size_t>(page.compressed)), page, chunk.codec, offset);
            position += static_cast<size_t>(page.compressed);
            if (page.type == 2) {
                if (page.values > static_cast<int64_t>(body.size()) + 1)
                    throw ParquetFormatError(offset, "a dictionary with more entries than bytes");
                PlainValues plain(body, column.physicalType, offset);
                for (int64_t v = 0; v < page.values; ++v)
                    appendValue(plain, strings, dictionaryInts, dictionaryTexts);
                continue;
            }
            if (page.type != 0)
                throw ParquetFormatError(offset, "page type " + std::to_string(page.type) + " is not supported (memlens reads version-1 data pages)");
            if (seen + page.values > chunk.values || static_cast<int64_t>(out.integers.size() + out.strings.size()) + page.values > kMaxRows)
                throw ParquetFormatError(offset, "a page with more values than its column chunk");
            std::string_view data = body;
            std::vector<uint32_t> levels;
            size_t present = static_cast<size_t>(page.values);
            if (column.nullable) {
                PlainValues prefix(data, 1, offset);
                const auto length = static_cast<uint64_t>(static_cast<uint32_t>(prefix.integer()));
                if (length > data.size() - 4)
                    throw ParquetFormatError(offset, "definition levels longer than their page");
                levels = decodeHybrid(data.substr(4, length), 1, present, offset);
                present = static_cast<size_t>(std::count(levels.begin(), levels.end(), 1u));
                data = data.substr(4 + length);
            }
            std::vector<std::optional<int64_t>> ints;
            std::vector<std::optional<std::string>> texts;
            if (page.encoding == 0) {
                PlainValues plain(data, column.physicalType, offset);
                for (size_t v = 0; v < present; ++v)
                    appendValue(plain, strings, ints, texts);
            } else if (page.encoding == 2 || page.encoding == 8) {
                if (data.empty())
                    throw ParquetFormatError(offset, "a dictionary-encoded page without its bit width");
                const size_t entries = strings ? dictionaryTexts.size() : dictionaryInts.size();
                for (uint32_t id : decodeHybrid(data.substr(1), static_cast<uint8_t>(data[0]), present, offset)) {
                    if (id >= entries)
                        throw ParquetFormatError(offset, "a dictionary index beyond the dictionary");
                    strings ? texts.push_back(dictionaryTexts[id]) : ints.push_back(dictionaryInts[id]);
                }
            } else {
                throw ParquetFormatError(offset, "encoding " + std::to_string(page.encoding) + " is not supported");
            }
            size_t next = 0;
            for (int64_t v = 0; v < page.values; ++v) {
                const bool isNull = column.nullable && levels[static_cast<size_t>(v)] == 0;
                if (strings)
                    out.strings.push_back(isNull ? std::nullopt : std::move(texts[next]));
                else
                    out.integers.push_back(isNull ? std::nullopt : ints[next]);
                next += isNull ? 0 : 1;
            }
            seen += page.values;
        }
    }
    return out;
}

} // namespace memlens::parquet
