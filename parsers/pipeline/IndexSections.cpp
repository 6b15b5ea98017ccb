#include "pipeline/IndexSections.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <zstd.h>

namespace memlens {

SectionWriter::SectionWriter() : cctx_(ZSTD_createCCtx())
{
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
}

SectionWriter::~SectionWriter()
{
    ZSTD_freeCCtx(cctx_);
}

void SectionWriter::frame(const void *data, size_t bytes)
{
    std::string compressed(ZSTD_compressBound(bytes), '\0');
    // ZSTD_compress2 starts a new frame each call, with the parameters set once.
    const size_t n = ZSTD_compress2(cctx_, compressed.data(), compressed.size(), data, bytes);
    failed_ = failed_ || ZSTD_isError(n);
    compressed.resize(ZSTD_isError(n) ? 0 : n);
    pod(static_cast<uint64_t>(compressed.size()));
    out_ += compressed;
}

bool SectionReader::framePromises(std::string_view frame, size_t bytes)
{
    return ZSTD_getFrameContentSize(frame.data(), frame.size()) == bytes;
}

namespace {

bool decompressInto(void *into, size_t bytes, std::string_view frame)
{
    if (ZSTD_getFrameContentSize(frame.data(), frame.size()) != bytes || ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size())
        return false;
    const size_t n = ZSTD_decompress(into, bytes, frame.data(), frame.size());
    return !ZSTD_isError(n) && n == bytes;
}

} // namespace

void SectionReader::decompress()
{
    // The largest first, each to whichever core is free.
    std::sort(jobs_.begin(), jobs_.end(), [](const Job &a, const Job &b) { return a.bytes > b.bytes; });
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
        for (size_t j; (j = next.fetch_add(1)) < jobs_.size() && !failed;)
            if (!decompressInto(jobs_[j].into, jobs_[j].bytes, jobs_[j].frame))
                failed = true;
    };
    std::future<void> other;
    try {
        other = std::async(std::launch::async, work);
    } catch (const std::system_error &) {
        // No second thread: this one does all.
    }
    work();
    if (other.valid())
        other.get();
    if (failed)
        throw std::invalid_argument("a damaged array");
}

} // namespace memlens
