#include "parquet/ParquetFileReader.h"

#include "parquet/ParquetColumnRead.h"

namespace memlens::parquet {

namespace {

using Field = ThriftCompactReader::Field;

// Calls `onField(field)` for each field of the struct being read; it returns false to skip one.
template <typename F>
void readStruct(ThriftCompactReader &r, F &&onField)
{
    int16_t last = 0;
    for (Field f = r.field(last); !f.stop; f = r.field(last)) {
        if (!onField(f))
            r.skip(f.type);
        last = f.id;
    }
}

template <typename F>
void readList(ThriftCompactReader &r, F &&onElement)
{
    const auto header = r.list();
    for (uint32_t i = 0; i < header.size; ++i)
        onElement();
}

ParquetFileReader::Chunk readColumnChunk(ThriftCompactReader &r)
{
    ParquetFileReader::Chunk chunk;
    std::optional<int64_t> dictionary;
    int64_t data = 0;
    readStruct(r, [&](const Field &f) {
        if (f.id == 1 && f.type == ThriftType::Binary)
            r.fail("column data in another file is not supported");
        if (f.id != 3 || f.type != ThriftType::Struct)
            return false;
        readStruct(r, [&](const Field &m) {
            switch (m.id) {
            case 4: chunk.codec = static_cast<int32_t>(r.integer()); return true;
            case 5: chunk.values = r.integer(); return true;
            case 7: chunk.size = r.integer(); return true;
            case 9: data = r.integer(); return true;
            case 11: dictionary = r.integer(); return true;
            default: return false;
            }
        });
        return true;
    });
    chunk.start = dictionary && *dictionary > 0 ? std::min(*dictionary, data) : data;
    return chunk;
}

} // namespace

ParquetFileReader::ParquetFileReader(std::string_view bytes) : bytes_(bytes)
{
    if (bytes.size() < 12 || bytes.substr(0, 4) != "PAR1" || bytes.substr(bytes.size() - 4) != "PAR1")
        throw ParquetFormatError(0, "not a Parquet file (no PAR1 at both ends)");
    readFooter();
}

void ParquetFileReader::readFooter()
{
    const auto *tail = reinterpret_cast<const unsigned char *>(bytes_.data() + bytes_.size() - 8);
    const uint64_t length = tail[0] | tail[1] << 8 | tail[2] << 16 | static_cast<uint64_t>(tail[3]) << 24;
    if (length > bytes_.size() - 12)
        throw ParquetFormatError(bytes_.size() - 8, "a footer longer than the file");
    const uint64_t start = bytes_.size() - 8 - length;
    ThriftCompactReader r(bytes_.substr(start, length), start);
    int64_t children = -1;
    readStruct(r, [&](const Field &f) {
        switch (f.id) {
        case 2:
            readList(r, [&] {
                ParquetColumnInfo column;
                int64_t kids = 0;
                readStruct(r, [&](const Field &s) {
                    switch (s.id) {
                    case 1: column.physicalType = static_cast<int32_t>(r.integer()); return true;
                    case 3: column.nullable = r.integer() != 0; return true;
                    case 4: column.name = std::string(r.binary()); return true;
                    case 5: kids = r.integer(); return true;
                    default: return false;
                    }
                });
                if (children < 0)
                    children = kids; // the root
                else if (kids != 0)
                    r.fail("nested columns are not supported");
                else
                    columns_.push_back(std::move(column));
            });
            return true;
        case 3: rows_ = r.integer(); return true;
        case 4:
            readList(r, [&] {
                std::vector<Chunk> chunks;
                readStruct(r, [&](const Field &g) {
                    if (g.id != 1)
                        return false;
                    readList(r, [&] { chunks.push_back(readColumnChunk(r)); });
                    return true;
                });
                rowGroups_.push_back(std::move(chunks));
            });
            return true;
        case 5:
            readList(r, [&] {
                std::pair<std::string, std::string> kv;
                readStruct(r, [&](const Field &k) {
                    if (k.id == 1)
                        kv.first = r.binary();
                    else if (k.id == 2)
                        kv.second = r.binary();
                    return k.id == 1 || k.id == 2;
                });
                metadata_.push_back(std::move(kv));
            });
            return true;
        default: return false;
        }
    });
    if (children != static_cast<int64_t>(columns_.size()))
        throw ParquetFormatError(start, "the schema's root does not list its columns");
    if (rows_ < 0 || rows_ > kMaxRows)
        throw ParquetFormatError(start, "a table of " + std::to_string(rows_) + " rows (memlens reads up to 16 M)");
    for (const auto &group : rowGroups_) {
        if (group.size() != columns_.size())
            throw ParquetFormatError(start, "a row group without every column");
    }
}

std::optional<std::string> ParquetFileReader::metadata(std::string_view key) const
{
    for (const auto &[k, v] : metadata_) {
        if (k == key)
            return v;
    }
    return std::nullopt;
}

std::vector<std::optional<int64_t>> ParquetFileReader::integers(std::string_view column) const
{
    return read(column, false).integers;
}

std::vector<std::optional<std::string>> ParquetFileReader::strings(std::string_view column) const
{
    return read(column, true).strings;
}

} // namespace memlens::parquet
