#pragma once
// The byte level of the snapshot encoding (see SnapshotCodec.h): a Writer that gathers small
// values and passes columns through, and a Reader that checks every count against the bytes
// left before it allocates anything.
#include "cache/SnapshotCodec.h"

#include <cstring>
#include <string>
#include <type_traits>

namespace memlens::codec {

// Small values gather in a buffer; columns go to the sink as they are.
class Writer {
public:
    explicit Writer(const EncodingSink &sink) : sink_(sink) {}
    ~Writer() = default;
    template <typename T>
    void pod(const T &v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes(std::string_view(reinterpret_cast<const char *>(&v), sizeof v));
    }
    void text(std::string_view s)
    {
        pod(static_cast<uint32_t>(s.size()));
        bytes(s);
    }
    template <typename T>
    void column(const T *data, size_t n)
    {
        pod(static_cast<uint64_t>(n));
        const std::string_view raw(reinterpret_cast<const char *>(data), n * sizeof(T));
        if (raw.size() < 4096) {
            bytes(raw);
            return;
        }
        passThrough(raw, false);
    }
    // A narrow column: its blocks, its wide values, then its offsets as an event column.
    template <typename T>
    void eventColumn(const NarrowColumn<T> &c)
    {
        column(c.blocks().data(), c.blocks().size());
        column(c.wide().data(), c.wide().size());
        eventColumn(c.offsets());
    }
    // An event column: a piece of its own when large, which the reader may fill in parallel.
    template <typename T>
    void eventColumn(const PodArray<T> &c)
    {
        const size_t bytes = c.size() * sizeof(T);
        if (bytes < kColumnPieceBytes) {
            column(c.data(), c.size());
            return;
        }
        pod(static_cast<uint64_t>(c.size()));
        passThrough(std::string_view(reinterpret_cast<const char *>(c.data()), bytes), true);
    }
    uint64_t finish()
    {
        flush();
        return total_;
    }

private:
    // Bytes handed on as they are, after what is gathered so far.
    void passThrough(std::string_view raw, bool column)
    {
        flush();
        total_ += raw.size();
        if (sink_)
            sink_(raw, column);
    }
    void bytes(std::string_view b)
    {
        buffer_.append(b);
        if (buffer_.size() >= (1u << 16))
            flush();
    }
    void flush()
    {
        total_ += buffer_.size();
        if (sink_ && !buffer_.empty())
            sink_(buffer_, false);
        buffer_.clear();
    }
    const EncodingSink &sink_;
    std::string buffer_;
    uint64_t total_ = 0;
};

// Pulls the encoding from a source of known size; every count is checked against what is left
// before anything is allocated for it.
class Reader {
public:
    Reader(uint64_t size, PayloadSource &source) : size_(size), source_(source) {}
    template <typename T>
    T pod()
    {
        T v;
        take(reinterpret_cast<char *>(&v), sizeof v);
        return v;
    }
    std::string text()
    {
        const auto n = pod<uint32_t>();
        need(n);
        std::string s(n, '\0');
        take(s.data(), n);
        return s;
    }
    // A count of items of `itemBytes` each that must fit in what is left.
    size_t count(size_t itemBytes)
    {
        const auto n = pod<uint64_t>();
        if (itemBytes && n > (size_ - at_) / itemBytes)
            throw CacheFormatError("a count runs past the end");
        return static_cast<size_t>(n);
    }
    template <typename T>
    void column(PodArray<T> &out)
    {
        const size_t n = count(sizeof(T));
        out.resizeForOverwrite(n);
        take(reinterpret_cast<char *>(out.begin()), n * sizeof(T));
    }
    // What Writer::eventColumn wrote of a narrow column; its offsets' buffer, which settle() may
    // still be filling, does not move when the column adopts it.
    template <typename T>
    void eventColumn(NarrowColumn<T> &out)
    {
        PodArray<typename NarrowColumn<T>::Block> blocks;
        PodArray<T> wide;
        PodArray<int32_t> offsets;
        column(blocks);
        column(wide);
        eventColumn(offsets);
        if (!out.adopt(std::move(offsets), std::move(blocks), std::move(wide)))
            throw CacheFormatError("a narrow column's blocks do not match its entries");
    }
    // What Writer::eventColumn wrote. A large one's content is there only after settle().
    template <typename T>
    void eventColumn(PodArray<T> &out)
    {
        const size_t n = count(sizeof(T));
        const size_t bytes = n * sizeof(T);
        out.resizeForOverwrite(n);
        if (bytes < kColumnPieceBytes) {
            take(reinterpret_cast<char *>(out.begin()), bytes);
            return;
        }
        source_.readColumn(reinterpret_cast<char *>(out.begin()), bytes, out.ownsMapping()); // count() checked it fits
        at_ += bytes;
    }
    void settle() { source_.settle(); }
    bool atEnd() const { return at_ == size_; }

private:
    void need(uint64_t n) const
    {
        if (n > size_ - at_)
            throw CacheFormatError("truncated");
    }
    void take(char *into, size_t n)
    {
        need(n);
        if (n)
            source_.read(into, n);
        at_ += n;
    }
    uint64_t size_;
    uint64_t at_ = 0;
    PayloadSource &source_;
};

} // namespace memlens::codec
