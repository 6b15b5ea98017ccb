#pragma once
// The byte level of what is kept beside a cache entry (pipeline/StoredIndexes, StoredColumns):
// small values as they are, each array its count and then pieces of at most kPieceBytes each: a
// zstd frame (with its checksum), or the bytes as they are with a hash where they compress less
// than threefold (decompressing those cost twice copying them, for a third of the disk) or the
// array is one a reader maps (kOwnMappingBytes or more). The reader checks every count against
// the bound its caller gives and the size each piece promises before it allocates, then fills
// the arrays in place, on two cores: pieces of one size keep both cores busy to the end.
#include "model/PodArray.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

struct ZSTD_DCtx_s;

namespace memlens {

// Bytes that are the value: trivially copyable types, and pairs of them (std::pair declares its
// own assignment, which makes it not trivially copyable, though its bytes are its members').
template <typename T>
inline constexpr bool kPlainData = std::is_trivially_copyable_v<T>;
template <typename A, typename B>
inline constexpr bool kPlainData<std::pair<A, B>> = kPlainData<A> && kPlainData<B>;

// An array's bytes are cut into pieces of this size, the last one shorter (an empty array is one
// empty piece).
constexpr size_t kPieceBytes = size_t{4} << 20;

// A piece kept as it is and this long or longer starts where a page of the file starts (the
// writer pads before it), so that a reader from a file maps it into its array instead of reading
// it: on this project's VM a fresh page costs ~4-14 us when the kernel first writes it and again
// when the program first reads it; a page of the file's cache mapped costs neither (a 12 M-entry
// run's 108 MB of such pieces, one core: 443 ms read into fresh pages, 44 ms mapped).
constexpr size_t kMappedPieceBytes = size_t{64} << 10;

// Whether SectionWriter compresses a piece: where zstd gains threefold, or never (pieces that
// are to be mapped when read, StoredColumns).
enum class PieceCompression { WhereItPays, Never };

// Keeps the arrays it is given by their place (they must outlive writeTo(), or be adopted), and
// compresses them in writeTo(), on two cores.
class SectionWriter {
public:
    // `fileOffset`: where its first byte will be in the file (what the pieces are aligned to).
    explicit SectionWriter(uint64_t fileOffset = 0, PieceCompression compression = PieceCompression::WhereItPays)
        : fileOffset_(fileOffset), compression_(compression)
    {
    }
    template <typename T>
    void pod(const T &v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        out_.append(reinterpret_cast<const char *>(&v), sizeof v);
    }
    template <typename T>
    void array(const T *data, size_t n)
    {
        static_assert(kPlainData<T>);
        pod(static_cast<uint64_t>(n));
        pieces(data, n * sizeof(T));
    }
    template <typename Container>
    void array(const Container &c)
    {
        array(c.data(), c.size());
    }
    // A temporary would be gone by writeTo(): adopt() it.
    template <typename Container>
    void array(const Container &&) = delete;
    // array() of one made for the writing, which would not outlive writeTo(): kept until then.
    template <typename Container>
    void adopt(Container c)
    {
        auto kept = std::make_shared<const Container>(std::move(c));
        array(kept->data(), kept->size());
        adopted_.push_back(std::move(kept));
    }
    // The sections handed to `put` in order, the pieces compressed first (those that compress
    // are held meanwhile, the rest are handed over from where they are); false when compression
    // failed or `put` refused.
    bool writeTo(const std::function<bool(std::string_view)> &put);
    // The same, as one string; empty when compression failed.
    std::string take();

private:
    void pieces(const void *data, size_t bytes);
    struct Piece {
        size_t at; // in out_, where it goes
        const char *data;
        size_t bytes;
        bool compress;     // tried: not in an array that a reader maps (kOwnMappingBytes or more)
        std::string frame; // when it compresses threefold, its zstd frame (made by writeTo())
    };
    uint64_t fileOffset_;
    PieceCompression compression_;
    std::string out_; // the small values
    std::vector<Piece> pieces_;
    std::vector<std::shared_ptr<const void>> adopted_;
};

// Where a reader's bytes are: in memory (tests, the fuzzer) or in a file, read straight into
// the arrays without a copy of the whole. Read from both reading threads at once.
class SectionBytes {
public:
    virtual ~SectionBytes() = default;
    virtual uint64_t size() const = 0;
    // Where the first byte is in its file (0 in memory): what a mapped piece is aligned to.
    virtual uint64_t fileOffset() const { return 0; }
    // False when they could not all be read.
    virtual bool read(uint64_t offset, void *into, size_t n) const = 0;
    // The bytes mapped over `into` (page-aligned, its pages a mapping of the reader's own), or
    // read there; false when neither could be done (`into`'s pages then hold nothing of them).
    virtual bool mapOrRead(uint64_t offset, void *into, size_t n) const { return read(offset, into, n); }
};

class MemorySectionBytes final : public SectionBytes {
public:
    explicit MemorySectionBytes(std::string_view bytes) : bytes_(bytes) {}
    uint64_t size() const override { return bytes_.size(); }
    bool read(uint64_t offset, void *into, size_t n) const override;

private:
    std::string_view bytes_;
};

// `size` bytes of an open file from `offset` on; the file stays the caller's.
class FileSectionBytes final : public SectionBytes {
public:
    FileSectionBytes(int fd, uint64_t offset, uint64_t size) : fd_(fd), offset_(offset), size_(size) {}
    uint64_t size() const override { return size_; }
    uint64_t fileOffset() const override { return offset_; }
    bool read(uint64_t offset, void *into, size_t n) const override;
    bool mapOrRead(uint64_t offset, void *into, size_t n) const override;

private:
    int fd_;
    uint64_t offset_, size_;
};

// Throws std::invalid_argument for bytes that are not such sections.
class SectionReader {
public:
    explicit SectionReader(const SectionBytes &bytes) : bytes_(bytes) {}
    template <typename T>
    T pod()
    {
        static_assert(std::is_trivially_copyable_v<T>);
        T v;
        take(&v, sizeof v);
        return v;
    }
    // Sized now, filled by decompress(): at most `most` elements.
    template <typename Container>
    void array(Container &into, uint64_t most)
    {
        using T = std::remove_cvref_t<decltype(*into.data())>;
        static_assert(kPlainData<T>);
        const auto n = pod<uint64_t>();
        // The count within what the snapshot allows, and the pieces promising as many bytes,
        // before anything is allocated. (No bound on the ratio: a run that repeats itself
        // compresses a thousandfold.)
        if (n > most)
            throw std::invalid_argument("an array past its bound");
        const size_t first = jobs_.size();
        readPieces(static_cast<size_t>(n) * sizeof(T));
        bool ownMapping = false;
        if constexpr (std::is_same_v<Container, PodArray<T>>) {
            into.resizeForOverwrite(n);
            ownMapping = into.ownsMapping();
        } else {
            into.resize(n);
        }
        place(first, static_cast<char *>(static_cast<void *>(into.data())), ownMapping);
    }
    bool done() const { return at_ == bytes_.size(); }
    // The arrays' pieces read into them; throws when one is damaged.
    void decompress();

    // A piece of an array and its place.
    struct Job {
        size_t offset; // in the array
        size_t bytes;
        uint64_t storedAt, stored; // a zstd frame, or the bytes and their hash
        bool raw;
        char *into = nullptr;
        bool mappable = false; // into a PodArray's own mapping, where a file's pages may go
    };
    // The pieces of the next array, which must be of `n` bytes, placed at `into` (`ownMapping`:
    // page-aligned in a mapping of its own), for the caller to fill with fillRaw(); throws
    // std::invalid_argument when the next array is not such.
    std::vector<Job> bytesInto(char *into, uint64_t n, bool ownMapping);
    // A piece kept as it is, mapped or read into place and its hash checked (any thread); false
    // for a compressed piece or a damaged one.
    bool fillRaw(const Job &job) const;

private:
    // The pieces of an array of `bytes`, as jobs without their place yet.
    void readPieces(size_t bytes);
    void place(size_t firstJob, char *into, bool ownMapping);
    bool fill(const Job &job, std::string &scratch, ZSTD_DCtx_s *context) const;
    void take(void *into, size_t n)
    {
        if (n > bytes_.size() - at_ || !bytes_.read(at_, into, n))
            throw std::invalid_argument("cut short");
        at_ += n;
    }
    const SectionBytes &bytes_;
    uint64_t at_ = 0;
    std::vector<Job> jobs_;
};

} // namespace memlens
