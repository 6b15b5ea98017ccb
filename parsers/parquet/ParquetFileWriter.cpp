#include "parquet/ParquetFileWriter.h"

#include "parquet/PageEncoding.h"
#include "parquet/ThriftCompact.h"
#include "parquet/Utf8Text.h"

#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>
#include <cstring>
#include <stdexcept>


namespace memlens::parquet {
namespace {

constexpr int32_t kZstd = 6;
constexpr int32_t kRequired = 0, kOptional = 1;
constexpr int32_t kConvertedUtf8 = 0;

} // namespace

RowBuilder &RowBuilder::integer(int64_t value)
{
    next(true).integers.push_back(value);
    return *this;
}

RowBuilder &RowBuilder::real(double value)
{
    next(true).reals.push_back(value);
    return *this;
}

RowBuilder &RowBuilder::boolean(bool value)
{
    next(true).integers.push_back(value ? 1 : 0);
    return *this;
}

RowBuilder &RowBuilder::string(std::string_view value)
{
    const bool dictionary = writer_.schema_.at(column_).dictionary;
    ColumnValues &c = next(true);
    if (dictionary) {
        c.indices.push_back(c.intern(value));
        return *this;
    }
    appendValidUtf8(c.text, value);
    if (c.text.size() > UINT32_MAX)
        throw std::runtime_error("a Parquet row group's strings over 4 GiB");
    c.textEnd.push_back(static_cast<uint32_t>(c.text.size()));
    return *this;
}

RowBuilder &RowBuilder::null()
{
    if (!writer_.schema_.at(column_).nullable)
        throw std::logic_error("null in the required Parquet column " + writer_.schema_[column_].name);
    next(false);
    return *this;
}

ColumnValues &RowBuilder::next(bool present)
{
    if (column_ >= writer_.columns_.size())
        throw std::logic_error("a Parquet row with more values than columns");
    ColumnValues &c = writer_.columns_[column_];
    if (writer_.schema_[column_].nullable)
        c.present.push_back(present ? 1 : 0);
    ++c.rows;
    ++column_;
    return c;
}

void RowBuilder::end()
{
    if (column_ != writer_.columns_.size())
        throw std::logic_error("a Parquet row with fewer values than columns");
    writer_.endRow();
}

ParquetFileWriter::ParquetFileWriter(std::string path, std::vector<ColumnSpec> schema, ParquetOptions options)
    : path_(std::move(path)), schema_(std::move(schema)), options_(options), columns_(schema_.size())
{
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_)
        throw std::runtime_error(path_ + ": cannot create: " + std::strerror(errno));
    write("PAR1");
}

ParquetFileWriter::~ParquetFileWriter()
{
    if (file_)
        std::fclose(file_);
}

void ParquetFileWriter::write(const std::string &bytes)
{
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size())
        throw std::runtime_error(path_ + ": cannot write: " + std::strerror(errno));
    offset_ += static_cast<int64_t>(bytes.size());
}

void ParquetFileWriter::endRow()
{
    if (++pendingRows_ >= options_.rowGroupRows)
        flushRowGroup();
}

void ParquetFileWriter::commitRows(size_t rows)
{
    for (size_t c = 0; c < columns_.size(); ++c) {
        if (columns_[c].rows != pendingRows_ + rows)
            throw std::logic_error("the Parquet column " + schema_[c].name + " has " + std::to_string(columns_[c].rows) + " rows, not " +
                                   std::to_string(pendingRows_ + rows));
    }
    pendingRows_ += rows;
    if (pendingRows_ > options_.rowGroupRows)
        throw std::logic_error("more rows than a Parquet row group holds");
    if (pendingRows_ == options_.rowGroupRows)
        flushRowGroup();
}

std::vector<EncodedChunk> ParquetFileWriter::encodeRowGroup() const
{
    std::vector<EncodedChunk> chunks(schema_.size());
    std::atomic<size_t> next{0};
    std::exception_ptr failure;
    std::mutex failureLock;
    const auto work = [&] {
        for (size_t c = next++; c < chunks.size(); c = next++) {
            try {
                chunks[c] = encodeColumnChunk(schema_[c], columns_[c], options_.zstdLevel);
            } catch (...) {
                const std::lock_guard lock(failureLock);
                failure = std::current_exception();
            }
        }
    };
    // Small row groups (most tables of most files) are not worth a thread.
    constexpr size_t kRowsWorthAThread = 1 << 16;
    const unsigned cores = pendingRows_ < kRowsWorthAThread ? 1 : options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < std::min<size_t>(cores, chunks.size()); ++t)
        helpers.emplace_back(work);
    work();
    for (std::thread &t : helpers)
        t.join();
    if (failure)
        std::rethrow_exception(failure);
    return chunks;
}

void ParquetFileWriter::flushRowGroup()
{
    if (pendingRows_ == 0)
        return;
    RowGroupMeta group;
    group.rows = static_cast<int64_t>(pendingRows_);
    std::vector<EncodedChunk> chunks = encodeRowGroup();
    for (size_t c = 0; c < schema_.size(); ++c) {
        EncodedChunk &chunk = chunks[c];
        ChunkMeta meta;
        if (chunk.dictionaryPageSize)
            meta.dictionaryPageOffset = offset_;
        meta.dataPageOffset = offset_ + static_cast<int64_t>(chunk.dictionaryPageSize);
        meta.compressedSize = static_cast<int64_t>(chunk.bytes.size());
        meta.uncompressedSize = chunk.uncompressedSize;
        meta.values = group.rows;
        meta.encodings = std::move(chunk.encodings);
        meta.statistics = std::move(chunk.statistics);
        write(chunk.bytes);
        group.bytes += meta.uncompressedSize;
        group.chunks.push_back(std::move(meta));
        columns_[c].clear();
    }
    rowsWritten_ += group.rows;
    pendingRows_ = 0;
    rowGroups_.push_back(std::move(group));
}

std::string ParquetFileWriter::footer() const
{
    ThriftCompactWriter w;
    w.i32(1, 1);
    w.beginList(2, ThriftType::Struct, static_cast<uint32_t>(schema_.size() + 1));
    w.beginListStruct();
    w.binary(4, "schema");
    w.i32(5, static_cast<int32_t>(schema_.size()));
    w.endStruct();
    for (const ColumnSpec &spec : schema_) {
        w.beginListStruct();
        w.i32(1, physicalType(spec.kind));
        w.i32(3, spec.nullable ? kOptional : kRequired);
        w.binary(4, spec.name);
        if (spec.kind == ColumnKind::String) {
            w.i32(6, kConvertedUtf8);
            w.beginStruct(10); // LogicalType: STRING
            w.beginStruct(1);
            w.endStruct();
            w.endStruct();
        }
        w.endStruct();
    }
    w.i64(3, rowsWritten_);
    w.beginList(4, ThriftType::Struct, static_cast<uint32_t>(rowGroups_.size()));
    for (const RowGroupMeta &group : rowGroups_) {
        w.beginListStruct();
        w.beginList(1, ThriftType::Struct, static_cast<uint32_t>(group.chunks.size()));
        for (size_t c = 0; c < group.chunks.size(); ++c) {
            const ChunkMeta &m = group.chunks[c];
            w.beginListStruct();
            w.i64(2, m.dictionaryPageOffset.value_or(m.dataPageOffset));
            w.beginStruct(3);
            w.i32(1, physicalType(schema_[c].kind));
            w.beginList(2, ThriftType::I32, static_cast<uint32_t>(m.encodings.size()));
            for (int32_t e : m.encodings)
                w.listI32(e);
            w.beginList(3, ThriftType::Binary, 1);
            w.listBinary(schema_[c].name);
            w.i32(4, kZstd);
            w.i64(5, m.values);
            w.i64(6, m.uncompressedSize);
            w.i64(7, m.compressedSize);
            w.i64(9, m.dataPageOffset);
            if (m.dictionaryPageOffset)
                w.i64(11, *m.dictionaryPageOffset);
            w.beginStruct(12);
            w.i64(3, m.statistics.nullCount);
            if (m.statistics.max)
                w.binary(5, *m.statistics.max);
            if (m.statistics.min)
                w.binary(6, *m.statistics.min);
            w.endStruct();
            w.endStruct();
            w.endStruct();
        }
        w.i64(2, group.bytes);
        w.i64(3, group.rows);
        w.endStruct();
    }
    if (!options_.metadata.empty()) {
        w.beginList(5, ThriftType::Struct, static_cast<uint32_t>(options_.metadata.size()));
        for (const auto &[key, value] : options_.metadata) {
            w.beginListStruct();
            w.binary(1, key);
            w.binary(2, value);
            w.endStruct();
        }
    }
    w.binary(6, "memlens");
    w.beginList(7, ThriftType::Struct, static_cast<uint32_t>(schema_.size()));
    for (size_t c = 0; c < schema_.size(); ++c) {
        w.beginListStruct();
        w.beginStruct(1); // TYPE_ORDER
        w.endStruct();
        w.endStruct();
    }
    return w.finish();
}

void ParquetFileWriter::finish()
{
    flushRowGroup();
    const std::string meta = footer();
    std::string tail;
    appendLittleEndian(tail, meta.size(), 4);
    write(meta);
    write(tail + "PAR1");
    const bool flushed = std::fflush(file_) == 0;
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (!flushed || closed != 0)
        throw std::runtime_error(path_ + ": cannot write: " + std::strerror(errno));
}

} // namespace memlens::parquet
