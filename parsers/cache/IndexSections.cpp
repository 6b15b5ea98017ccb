#include "cache/IndexSections.h"

#include "decode/input/UniqueFd.h"
#include "memory/PrefaultAhead.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <atomic>
#include <future>
#include <memory>
#include <sys/mman.h>
#include <zstd.h>

namespace memlens {

namespace {

// A piece's stored size, its top bit set for bytes stored as they are.
constexpr uint64_t kRawPiece = uint64_t{1} << 63;

// Catches damage, not forgery (the parts are checked against the snapshot when used): four
// independent multiply chains, at memory speed.
uint64_t pieceHash(const char *p, size_t n)
{
    constexpr uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h[4] = {n, n ^ 0x632BE59BD9B4E019ull, n ^ 0xC2B2AE3D27D4EB4Full, n ^ 0x165667B19E3779F9ull};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (size_t lane = 0; lane < 4; ++lane) {
            uint64_t v;
            std::memcpy(&v, p + i + 8 * lane, 8);
            h[lane] = std::rotl((h[lane] ^ v) * k, 29);
        }
    }
    for (; i < n; ++i)
        h[0] = std::rotl((h[0] ^ static_cast<uint8_t>(p[i])) * k, 29);
    return (h[0] * k) ^ std::rotl(h[1] * k, 17) ^ std::rotl(h[2] * k, 34) ^ std::rotl(h[3] * k, 51);
}

// From `offset` in a file to where its next page starts.
size_t pageGap(uint64_t offset)
{
    return static_cast<size_t>((kPageBytes - offset % kPageBytes) % kPageBytes);
}

// Runs work(j) for every j < count, each j on whichever of this thread and one more is free
// (the largest first, when they are given so); `worker()` makes each thread's work, with
// whatever it keeps from one j to the next. False when one failed (the rest are then left).
template <typename MakeWorker>
bool onTwoCores(size_t count, MakeWorker worker)
{
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto run = [&] {
        auto work = worker();
        for (size_t j; (j = next.fetch_add(1)) < count && !failed;)
            if (!work(j))
                failed = true;
    };
    std::future<void> other;
    try {
        other = std::async(std::launch::async, run);
    } catch (const std::system_error &) {
        // No second thread: this one does all.
    }
    run();
    if (other.valid())
        other.get();
    return !failed;
}

} // namespace

void SectionWriter::pieces(const void *data, size_t bytes)
{
    // An array a reader holds in a mapping of its own is mapped from the file when kept as it is:
    // decompressed, it would fill as many fresh pages (a 12 M-entry run's active-bytes offsets,
    // 48 MB, zstd 9x).
    const bool compress = compression_ == PieceCompression::WhereItPays && bytes < kOwnMappingBytes;
    for (size_t at = 0; at == 0 || at < bytes; at += kPieceBytes)
        pieces_.push_back({out_.size(), static_cast<const char *>(data) + at, std::min(kPieceBytes, bytes - at), compress, {}});
}

bool SectionWriter::writeTo(const std::function<bool(std::string_view)> &put)
{
    const bool compressed = onTwoCores(pieces_.size(), [this] {
        std::shared_ptr<ZSTD_CCtx> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
        ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1);
        return [this, context, scratch = std::string()](size_t j) mutable {
            if (!context)
                return false;
            Piece &p = pieces_[j];
            if (!p.compress)
                return true;
            scratch.resize(ZSTD_compressBound(p.bytes));
            // ZSTD_compress2 starts a new frame each call, with the parameters set once.
            const size_t n = ZSTD_compress2(context.get(), scratch.data(), scratch.size(), p.data, p.bytes);
            if (ZSTD_isError(n))
                return false;
            if (3 * n <= p.bytes)
                p.frame.assign(scratch.data(), n);
            return true;
        };
    });
    if (!compressed)
        return false;
    uint64_t at = fileOffset_;
    auto counted = [&](std::string_view bytes) {
        at += bytes.size();
        return put(bytes);
    };
    auto value = [&](uint64_t v) { return counted(std::string_view(reinterpret_cast<const char *>(&v), sizeof v)); };
    const std::string zeros(kPageBytes, '\0');
    size_t from = 0;
    for (Piece &p : pieces_) {
        bool ok = counted(std::string_view(out_).substr(from, p.at - from));
        from = p.at;
        if (!p.frame.empty()) {
            ok = ok && value(p.frame.size()) && counted(p.frame);
        } else {
            ok = ok && value(kRawPiece | (p.bytes + sizeof(uint64_t)));
            if (p.bytes >= kMappedPieceBytes)
                ok = ok && counted(std::string_view(zeros).substr(0, pageGap(at)));
            ok = ok && counted({p.data, p.bytes}) && value(pieceHash(p.data, p.bytes));
        }
        std::string().swap(p.frame);
        if (!ok)
            return false;
    }
    return counted(std::string_view(out_).substr(from));
}

std::string SectionWriter::take()
{
    std::string out;
    return writeTo([&](std::string_view bytes) {
               out += bytes;
               return true;
           })
               ? out
               : std::string();
}

bool MemorySectionBytes::read(uint64_t offset, void *into, size_t n) const
{
    if (offset > bytes_.size() || n > bytes_.size() - offset)
        return false;
    if (n > 0) // an empty array's place may be null
        std::memcpy(into, bytes_.data() + offset, n);
    return true;
}

bool FileSectionBytes::read(uint64_t offset, void *into, size_t n) const
{
    return offset <= size_ && n <= size_ - offset && readAt(fd_, offset_ + offset, into, n);
}

bool FileSectionBytes::mapOrRead(uint64_t offset, void *into, size_t n) const
{
    const size_t pages = n & ~(kPageBytes - 1);
    const uint64_t at = offset_ + offset;
    if (offset > size_ || n > size_ - offset || pages == 0 || at % kPageBytes != 0 || reinterpret_cast<uintptr_t>(into) % kPageBytes != 0)
        return read(offset, into, n);
    // Copy-on-write pages of the file over the array's own: the cache's writer replaces a file by
    // renaming another over it, never by writing it in place.
    if (::mmap(into, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd_, static_cast<off_t>(at)) == MAP_FAILED) {
        // A failed MAP_FIXED may have unmapped the range: fresh pages there again, then read.
        if (::mmap(into, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            return false;
        return read(offset, into, n);
    }
    return n == pages || read(offset + pages, static_cast<char *>(into) + pages, n - pages);
}

void SectionReader::readPieces(size_t bytes)
{
    for (size_t at = 0; at == 0 || at < bytes; at += kPieceBytes) {
        const size_t piece = std::min(kPieceBytes, bytes - at);
        const auto header = pod<uint64_t>();
        const bool raw = (header & kRawPiece) != 0;
        const uint64_t stored = header & ~kRawPiece;
        if (raw && piece >= kMappedPieceBytes) {
            const size_t gap = pageGap(bytes_.fileOffset() + at_);
            if (gap > bytes_.size() - at_)
                throw std::invalid_argument("a piece cut short");
            at_ += gap;
        }
        if (stored > bytes_.size() - at_)
            throw std::invalid_argument("a piece cut short");
        bool promises = raw ? stored == piece + sizeof(uint64_t) : stored <= ZSTD_compressBound(piece);
        if (promises && !raw) {
            char frameHeader[18]; // ZSTD_FRAMEHEADERSIZE_MAX, which zstd.h shows static linkers only
            const size_t headerBytes = static_cast<size_t>(std::min<uint64_t>(stored, sizeof frameHeader));
            promises = bytes_.read(at_, frameHeader, headerBytes) && ZSTD_getFrameContentSize(frameHeader, headerBytes) == piece;
        }
        if (!promises)
            throw std::invalid_argument("a piece of another size");
        jobs_.push_back({at, piece, at_, stored, raw});
        at_ += stored;
    }
}

void SectionReader::place(size_t firstJob, char *into, bool ownMapping)
{
    for (size_t j = firstJob; j < jobs_.size(); ++j) {
        jobs_[j].into = into + jobs_[j].offset;
        jobs_[j].mappable = ownMapping && jobs_[j].raw && jobs_[j].bytes >= kMappedPieceBytes;
    }
}

std::vector<SectionReader::Job> SectionReader::bytesInto(char *into, uint64_t n, bool ownMapping)
{
    if (pod<uint64_t>() != n)
        throw std::invalid_argument("an array of another size");
    const size_t first = jobs_.size();
    readPieces(static_cast<size_t>(n));
    place(first, into, ownMapping);
    std::vector<Job> placed(jobs_.begin() + static_cast<long>(first), jobs_.end());
    jobs_.resize(first);
    return placed;
}

bool SectionReader::fillRaw(const Job &job) const
{
    if (!job.raw)
        return false;
    if (!job.mappable) // its fresh pages at once, not one fault a page as they are written
        prefault(job.into, job.bytes);
    uint64_t hash;
    const bool placed = job.mappable ? bytes_.mapOrRead(job.storedAt, job.into, job.bytes) : bytes_.read(job.storedAt, job.into, job.bytes);
    return placed && bytes_.read(job.storedAt + job.bytes, &hash, sizeof hash) && pieceHash(job.into, job.bytes) == hash;
}

bool SectionReader::fill(const Job &job, std::string &scratch, ZSTD_DCtx *context) const
{
    if (job.raw)
        return fillRaw(job);
    prefault(job.into, job.bytes); // its fresh pages at once, not one fault a page as they are written
    scratch.resize(static_cast<size_t>(job.stored));
    if (!context || !bytes_.read(job.storedAt, scratch.data(), scratch.size()) ||
        ZSTD_findFrameCompressedSize(scratch.data(), scratch.size()) != scratch.size())
        return false;
    const size_t n = ZSTD_decompressDCtx(context, job.into, job.bytes, scratch.data(), scratch.size());
    return !ZSTD_isError(n) && n == job.bytes;
}

void SectionReader::decompress()
{
    // The largest first, each to whichever core is free.
    std::sort(jobs_.begin(), jobs_.end(), [](const Job &a, const Job &b) { return a.bytes > b.bytes; });
    const bool filled = onTwoCores(jobs_.size(), [this] {
        std::shared_ptr<ZSTD_DCtx> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
        return [this, context, scratch = std::string()](size_t j) mutable { return fill(jobs_[j], scratch, context.get()); };
    });
    if (!filled)
        throw std::invalid_argument("a damaged array");
}

} // namespace memlens
