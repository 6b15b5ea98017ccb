#include "cache/CachePayload.h"

#include <memory>
#include <system_error>
#include <zstd.h>

namespace memlens {

bool writePayload(const Snapshot &snapshot, const std::function<bool(std::string_view)> &out)
{
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx *)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1);
    // A content checksum: damage that still decompresses is caught, not believed.
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    std::string chunk(ZSTD_CStreamOutSize(), '\0');
    bool ok = true;
    bool sharedOpen = false; // a shared frame has content not yet ended
    auto feed = [&](std::string_view piece, ZSTD_EndDirective mode) {
        ZSTD_inBuffer in{piece.data(), piece.size(), 0};
        size_t remaining = 0;
        do {
            ZSTD_outBuffer o{chunk.data(), chunk.size(), 0};
            remaining = ZSTD_compressStream2(cctx.get(), &o, &in, mode);
            if (ZSTD_isError(remaining) || !out(std::string_view(chunk.data(), o.pos))) {
                ok = false;
                return;
            }
        } while (ok && (mode == ZSTD_e_end ? remaining != 0 : in.pos < in.size));
    };
    encodeSnapshot(snapshot, [&](std::string_view piece, bool column) {
        if (!ok)
            return;
        if (!column) {
            feed(piece, ZSTD_e_continue);
            sharedOpen = true;
            return;
        }
        if (sharedOpen)
            feed({}, ZSTD_e_end);
        sharedOpen = false;
        // Its size in the frame header: the reader checks it before it decompresses.
        ZSTD_CCtx_setPledgedSrcSize(cctx.get(), piece.size());
        feed(piece, ZSTD_e_end);
    });
    if (ok && sharedOpen)
        feed({}, ZSTD_e_end);
    return ok;
}

PayloadReader::PayloadReader(std::string_view compressed, const SectionBytes *rawColumns)
    : compressed_(compressed), stream_(ZSTD_createDCtx())
{
    if (rawColumns)
        raw_.emplace(*rawColumns);
    // As the file decoders: bounded memory for whatever window a damaged header asks for.
    ZSTD_DCtx_setParameter(stream_, ZSTD_d_windowLogMax, 27);
}

PayloadReader::~PayloadReader()
{
    abandon();
    ZSTD_freeDCtx(stream_);
}

void PayloadReader::abandon()
{
    {
        std::lock_guard lock(mutex_);
        noMoreColumns_ = true;
        nextColumn_ = columns_.size(); // what has not started is not needed any more
    }
    changed_.notify_all();
    if (worker_.joinable())
        worker_.join();
}

void PayloadReader::read(char *into, size_t n)
{
    if (!inFrame_) {
        ZSTD_DCtx_reset(stream_, ZSTD_reset_session_only);
        inFrame_ = true;
        lastResult_ = 1;
    }
    ZSTD_inBuffer in{compressed_.data(), compressed_.size(), at_};
    ZSTD_outBuffer out{into, n, 0};
    while (out.pos < out.size) {
        const size_t before = out.pos + in.pos;
        lastResult_ = ZSTD_decompressStream(stream_, &out, &in);
        if (ZSTD_isError(lastResult_) || out.pos + in.pos == before)
            throw CacheFormatError("the compressed payload is damaged");
        if (lastResult_ == 0 && out.pos < out.size)
            throw CacheFormatError("a frame ends in the middle of a record");
    }
    at_ = in.pos;
}

// The shared frame must end here, its checksum checked, before a column frame follows.
void PayloadReader::endFrame()
{
    if (!inFrame_)
        return;
    ZSTD_inBuffer in{compressed_.data(), compressed_.size(), at_};
    char spare = 0;
    while (lastResult_ != 0) {
        ZSTD_outBuffer out{&spare, 1, 0};
        const size_t before = in.pos;
        lastResult_ = ZSTD_decompressStream(stream_, &out, &in);
        if (ZSTD_isError(lastResult_) || out.pos != 0 || (lastResult_ != 0 && in.pos == before))
            throw CacheFormatError("a frame holds more than its records");
    }
    at_ = in.pos;
    inFrame_ = false;
}

void PayloadReader::readColumn(char *into, size_t n, bool ownMapping)
{
    endFrame();
    const std::string_view rest = compressed_.substr(at_);
    const size_t frameSize = ZSTD_findFrameCompressedSize(rest.data(), rest.size());
    if (ZSTD_isError(frameSize) || ZSTD_getFrameContentSize(rest.data(), frameSize) != n)
        throw CacheFormatError("a column's frame is missing or of another size");
    at_ += frameSize;
    std::vector<SectionReader::Job> raw;
    if (raw_ && !rawRefused_) {
        try {
            raw = raw_->bytesInto(into, n, ownMapping);
        } catch (const std::invalid_argument &) {
            rawRefused_ = true; // not this entry's columns: every column from its frame
        }
    }
    {
        std::lock_guard lock(mutex_);
        columns_.push_back({rest.substr(0, frameSize), into, n, std::move(raw)});
    }
    changed_.notify_one();
    if (!worker_.joinable()) {
        try {
            worker_ = std::thread([this] { work(); });
        } catch (const std::system_error &) {
            // No second thread to be had: settle() decompresses every column on this one.
        }
    }
}

bool PayloadReader::takeColumn(Column &column)
{
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return nextColumn_ < columns_.size() || noMoreColumns_; });
    if (nextColumn_ == columns_.size())
        return false;
    column = columns_[nextColumn_++];
    return true;
}

// Column frames until there are none, with a context of the caller's own.
void PayloadReader::work()
{
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx *)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!context) {
        failed_ = true;
        return;
    }
    Column c;
    while (takeColumn(c)) {
        if (placeRaw(c))
            continue;
        const size_t got = ZSTD_decompressDCtx(context.get(), c.into, c.size, c.frame.data(), c.frame.size());
        if (ZSTD_isError(got) || got != c.size)
            failed_ = true;
    }
}

// Over whatever a refused piece left in place, the column's frame is decompressed.
bool PayloadReader::placeRaw(const Column &column)
{
    if (column.raw.empty())
        return false;
    for (const SectionReader::Job &piece : column.raw) {
        if (!raw_->fillRaw(piece)) {
            rawRefused_ = true;
            return false;
        }
    }
    return true;
}

void PayloadReader::settle()
{
    {
        std::lock_guard lock(mutex_);
        noMoreColumns_ = true;
    }
    changed_.notify_all();
    work();
    if (worker_.joinable())
        worker_.join();
    if (failed_)
        throw CacheFormatError("a column's frame is damaged");
}

bool PayloadReader::endsCleanly()
{
    try {
        endFrame();
    } catch (const CacheFormatError &) {
        return false;
    }
    return at_ == compressed_.size();
}

} // namespace memlens
