#include "parquet/ColumnChunkEncoder.h"

#include "parquet/PageEncoding.h"
#include "parquet/ThriftCompact.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <unordered_map>

namespace memlens::parquet {
namespace {

// Parquet's enums, as parquet.thrift numbers them.
constexpr int32_t kPlain = 0, kRle = 3, kRleDictionary = 8;
constexpr int32_t kDataPage = 0, kDictionaryPage = 2;

std::string zstdCompress(const std::string &raw, int level)
{
    // One context per thread, reused: a file's dozens of small pages would each set one up.
    static thread_local const std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx *)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!context)
        throw std::bad_alloc();
    std::string out(ZSTD_compressBound(raw.size()), '\0');
    const size_t n = ZSTD_compressCCtx(context.get(), out.data(), out.size(), raw.data(), raw.size(), level);
    if (ZSTD_isError(n))
        throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
    out.resize(n);
    return out;
}

int32_t pageSize(size_t bytes)
{
    if (bytes > static_cast<size_t>(INT32_MAX))
        throw std::runtime_error("a Parquet page over 2 GiB");
    return static_cast<int32_t>(bytes);
}

// A page header, then the compressed body; adds both sizes to the chunk.
void appendPage(EncodedChunk &chunk, const std::string &raw, int zstdLevel, int32_t type,
                const std::function<void(ThriftCompactWriter &)> &typeHeader)
{
    const std::string body = zstdCompress(raw, zstdLevel);
    ThriftCompactWriter header;
    header.i32(1, type);
    header.i32(2, pageSize(raw.size()));
    header.i32(3, pageSize(body.size()));
    typeHeader(header);
    const std::string head = header.finish();
    chunk.bytes += head;
    chunk.bytes += body;
    chunk.uncompressedSize += static_cast<int64_t>(head.size() + raw.size());
}

std::string plainValue(ColumnKind kind, const ColumnValues &values, size_t i)
{
    std::string out;
    switch (kind) {
    case ColumnKind::Int64: appendLittleEndian(out, static_cast<uint64_t>(values.integers[i]), 8); break;
    case ColumnKind::Int32: appendLittleEndian(out, static_cast<uint64_t>(values.integers[i]), 4); break;
    case ColumnKind::Boolean: out.push_back(values.integers[i] ? 1 : 0); break;
    case ColumnKind::Double: {
        uint64_t bits = 0;
        std::memcpy(&bits, &values.reals[i], 8);
        appendLittleEndian(out, bits, 8);
        break;
    }
    case ColumnKind::String: out.assign(values.string(i)); break;
    }
    return out;
}

// The index of the smallest and the largest value.
std::pair<size_t, size_t> extremes(ColumnKind kind, const ColumnValues &values)
{
    const size_t n = values.valueCount();
    size_t lo = 0, hi = 0;
    for (size_t i = 1; i < n; ++i) {
        bool less = false, greater = false;
        if (kind == ColumnKind::String) {
            less = values.string(i) < values.string(lo);
            greater = values.string(i) > values.string(hi);
        } else if (kind == ColumnKind::Double) {
            less = values.reals[i] < values.reals[lo];
            greater = values.reals[i] > values.reals[hi];
        } else {
            less = values.integers[i] < values.integers[lo];
            greater = values.integers[i] > values.integers[hi];
        }
        lo = less ? i : lo;
        hi = greater ? i : hi;
    }
    return {lo, hi};
}

std::string plainValues(ColumnKind kind, const ColumnValues &values)
{
    std::string out;
    const size_t n = values.valueCount();
    if (kind == ColumnKind::Boolean) {
        std::vector<uint8_t> bits((n + 7) / 8, 0);
        for (size_t i = 0; i < n; ++i)
            bits[i / 8] |= static_cast<uint8_t>((values.integers[i] ? 1 : 0) << (i % 8));
        out.assign(bits.begin(), bits.end());
    } else if (kind == ColumnKind::String) {
        out.reserve(values.text.size() + 4 * n);
        for (size_t i = 0; i < n; ++i)
            appendPlainString(out, values.string(i));
    } else {
        const int width = kind == ColumnKind::Int32 ? 4 : 8;
        out.resize(n * width);
        for (size_t i = 0; i < n; ++i) {
            uint64_t bits = 0;
            if (kind == ColumnKind::Double)
                std::memcpy(&bits, &values.reals[i], 8);
            else
                bits = static_cast<uint64_t>(values.integers[i]);
            for (int b = 0; b < width; ++b)
                out[i * width + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
        }
    }
    return out;
}

std::string definitionLevels(const ColumnValues &values)
{
    std::vector<uint32_t> levels(values.present.begin(), values.present.end());
    std::string run;
    appendBitPackedRun(run, levels.data(), levels.size(), 1);
    std::string out;
    appendLittleEndian(out, run.size(), 4);
    return out + run;
}

void writeStatistics(ThriftCompactWriter &w, int16_t field, const ChunkStatistics &stats)
{
    w.beginStruct(field);
    w.i64(3, stats.nullCount);
    if (stats.max)
        w.binary(5, *stats.max);
    if (stats.min)
        w.binary(6, *stats.min);
    w.endStruct();
}

// The smallest and largest dictionary entries: every entry is used by the row group.
ChunkStatistics dictionaryStatistics(const ColumnValues &values)
{
    ChunkStatistics stats;
    stats.nullCount = static_cast<int64_t>(values.nullCount());
    if (values.dictionary.empty())
        return stats;
    const auto [lo, hi] = std::minmax_element(values.dictionary.begin(), values.dictionary.end());
    stats.min = *lo;
    stats.max = *hi;
    return stats;
}

ChunkStatistics plainStatistics(const ColumnSpec &spec, const ColumnValues &values)
{
    ChunkStatistics stats;
    stats.nullCount = static_cast<int64_t>(values.nullCount());
    if (values.valueCount() > 0) {
        const auto [lo, hi] = extremes(spec.kind, values);
        stats.min = plainValue(spec.kind, values, lo);
        stats.max = plainValue(spec.kind, values, hi);
    }
    return stats;
}

void appendDictionaryPages(EncodedChunk &chunk, std::string &page, const ColumnValues &values, int zstdLevel)
{
    std::string entries;
    for (const std::string &entry : values.dictionary)
        appendPlainString(entries, entry);
    appendPage(chunk, entries, zstdLevel, kDictionaryPage, [&](ThriftCompactWriter &w) {
        w.beginStruct(7);
        w.i32(1, static_cast<int32_t>(values.dictionary.size()));
        w.i32(2, kPlain);
        w.endStruct();
    });
    chunk.dictionaryPageSize = chunk.bytes.size();
    const int width = bitWidthFor(values.dictionary.size());
    page.push_back(static_cast<char>(width));
    appendBitPackedRun(page, values.indices.data(), values.indices.size(), width);
    chunk.encodings = {kPlain, kRle, kRleDictionary};
}

} // namespace

int32_t physicalType(ColumnKind kind)
{
    switch (kind) {
    case ColumnKind::Boolean: return 0;
    case ColumnKind::Int32: return 1;
    case ColumnKind::Int64: return 2;
    case ColumnKind::Double: return 5;
    case ColumnKind::String: return 6;
    }
    return 2;
}

EncodedChunk encodeColumnChunk(const ColumnSpec &spec, const ColumnValues &values, int zstdLevel)
{
    EncodedChunk chunk;
    const bool dictionary = spec.dictionary && spec.kind == ColumnKind::String;
    chunk.statistics = dictionary ? dictionaryStatistics(values) : plainStatistics(spec, values);
    std::string page = spec.nullable ? definitionLevels(values) : std::string();
    if (dictionary) {
        appendDictionaryPages(chunk, page, values, zstdLevel);
    } else {
        page += plainValues(spec.kind, values);
        chunk.encodings = {kPlain, kRle};
    }
    appendPage(chunk, page, zstdLevel, kDataPage, [&](ThriftCompactWriter &w) {
        w.beginStruct(5);
        w.i32(1, static_cast<int32_t>(values.rows));
        w.i32(2, dictionary ? kRleDictionary : kPlain);
        w.i32(3, kRle);
        w.i32(4, kRle);
        writeStatistics(w, 5, chunk.statistics);
        w.endStruct();
    });
    return chunk;
}

} // namespace memlens::parquet
