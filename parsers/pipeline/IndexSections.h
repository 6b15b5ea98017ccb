#pragma once
// The byte level of the indexes kept beside a cache entry (pipeline/StoredIndexes): small
// values as they are, each array a zstd frame of its own (with its checksum). The reader
// checks every count against the bound its caller gives and the size its frame promises before
// it allocates, then decompresses the arrays straight into place, on two cores.
#include "model/PodArray.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

struct ZSTD_CCtx_s;

namespace memlens {

// Bytes that are the value: trivially copyable types, and pairs of them (std::pair declares its
// own assignment, which makes it not trivially copyable, though its bytes are its members').
template <typename T>
inline constexpr bool kPlainData = std::is_trivially_copyable_v<T>;
template <typename A, typename B>
inline constexpr bool kPlainData<std::pair<A, B>> = kPlainData<A> && kPlainData<B>;

class SectionWriter {
public:
    SectionWriter();
    ~SectionWriter();
    SectionWriter(const SectionWriter &) = delete;
    SectionWriter &operator=(const SectionWriter &) = delete;
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
        frame(data, n * sizeof(T));
    }
    template <typename Container>
    void array(const Container &c)
    {
        array(c.data(), c.size());
    }
    // Empty when compression failed.
    std::string take() { return failed_ ? std::string() : std::move(out_); }

private:
    void frame(const void *data, size_t bytes);
    ZSTD_CCtx_s *cctx_; // one for every array
    std::string out_;
    bool failed_ = false;
};

// Throws std::invalid_argument for bytes that are not such sections.
class SectionReader {
public:
    explicit SectionReader(std::string_view bytes) : bytes_(bytes) {}
    template <typename T>
    T pod()
    {
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
        const auto frameBytes = pod<uint64_t>();
        // The count within what the snapshot allows, and the frame's header promising as many
        // bytes, before anything is allocated. (No bound on the ratio: a run that repeats itself
        // compresses a thousandfold.)
        if (n > most || frameBytes > bytes_.size() || !framePromises(bytes_.substr(0, frameBytes), n * sizeof(T)))
            throw std::invalid_argument("an array past its bound");
        if constexpr (std::is_same_v<Container, PodArray<T>>)
            into.resizeForOverwrite(n);
        else
            into.resize(n);
        jobs_.push_back({into.data(), n * sizeof(T), bytes_.substr(0, frameBytes)});
        bytes_.remove_prefix(frameBytes);
    }
    bool done() const { return bytes_.empty(); }
    // The arrays' frames decompressed into them; throws when one is damaged.
    void decompress();

private:
    static bool framePromises(std::string_view frame, size_t bytes);
    struct Job {
        void *into;
        size_t bytes;
        std::string_view frame;
    };
    void take(void *into, size_t n)
    {
        if (n > bytes_.size())
            throw std::invalid_argument("cut short");
        std::memcpy(into, bytes_.data(), n);
        bytes_.remove_prefix(n);
    }
    std::string_view bytes_;
    std::vector<Job> jobs_;
};

} // namespace memlens
