#pragma once
// Buffered reading from a ByteSource with the decoded-stream offset, for decoders that
// need "the next n bytes" and precise error offsets.
#include "decode/input/ByteSource.h"
#include "model/LoadError.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memlens {

struct LoadControl {
    // Called now and then with (file bytes consumed, file size); may be empty.
    std::function<void(uint64_t, uint64_t)> progress;
    const std::atomic<bool> *cancel = nullptr;
};

class ByteReader {
public:
    // The control is copied: callers pass temporaries ({}), which a reference outlived.
    ByteReader(ByteSource &source, uint64_t fileSize, LoadControl control)
        : source_(source), fileSize_(fileSize), control_(std::move(control)), buffer_(kBufferSize)
    {
    }

    uint64_t fileSize() const { return fileSize_; }

    // Offset in the decoded stream of the next byte to be read.
    uint64_t offset() const { return base_ + pos_; }

    bool atEnd()
    {
        return pos_ == end_ && !refill(1);
    }

    // The next byte without consuming it; -1 at the end.
    int peek()
    {
        if (pos_ == end_ && !refill(1))
            return -1;
        return static_cast<uint8_t>(buffer_[pos_]);
    }

    // Up to `n` (≤ kBufferSize) upcoming bytes without consuming them; fewer near the end.
    std::string_view lookahead(size_t n)
    {
        n = std::min(n, kBufferSize);
        if (end_ - pos_ < n)
            refill(n);
        return {buffer_.data() + pos_, std::min(n, end_ - pos_)};
    }

    // The buffered bytes from the read position: at least `n` (≤ kBufferSize) unless the
    // stream ends first. Consume them with advance().
    std::string_view window(size_t n)
    {
        if (end_ - pos_ < n)
            refill(n);
        return {buffer_.data() + pos_, end_ - pos_};
    }
    void advance(size_t n) { pos_ += n; }

    // Up to `capacity` bytes, at least one unless at the end.
    size_t readSome(char *out, size_t capacity)
    {
        if (pos_ == end_ && capacity >= kBufferSize) {
            // Nothing buffered and a large read: from the source straight into `out`.
            base_ += pos_;
            pos_ = end_ = 0;
            const size_t n = source_.read(out, capacity);
            base_ += n;
            if (n > 0)
                report();
            return n;
        }
        if (pos_ == end_ && !refill(1))
            return 0;
        size_t n = std::min(capacity, end_ - pos_);
        std::memcpy(out, buffer_.data() + pos_, n);
        pos_ += n;
        return n;
    }

    uint8_t byte()
    {
        if (pos_ == end_ && !refill(1))
            truncated(1);
        return static_cast<uint8_t>(buffer_[pos_++]);
    }

    // Pointer to the next n bytes (n ≤ kBufferSize), consumed.
    const char *take(size_t n)
    {
        if (end_ - pos_ < n && !refill(n))
            truncated(n);
        const char *p = buffer_.data() + pos_;
        pos_ += n;
        return p;
    }

    void readInto(std::string &out, uint64_t n)
    {
        out.clear();
        while (n > 0) {
            size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, kBufferSize));
            out.append(take(chunk), chunk);
            n -= chunk;
        }
    }

    void skip(uint64_t n)
    {
        while (n > 0) {
            size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, kBufferSize));
            take(chunk);
            n -= chunk;
        }
    }

    // Reads and discards everything that is left.
    void drain()
    {
        pos_ = end_;
        while (refill(1))
            pos_ = end_;
    }

    [[noreturn]] void truncated(uint64_t wanted) const
    {
        throw DecodeError(offset(), "file ends in the middle of the data (needed " + std::to_string(wanted) +
                                        " more bytes)");
    }

    static constexpr size_t kBufferSize = 1 << 20;

private:
    bool refill(size_t need)
    {
        size_t have = end_ - pos_;
        std::memmove(buffer_.data(), buffer_.data() + pos_, have);
        base_ += pos_;
        pos_ = 0;
        end_ = have;
        while (end_ < need) {
            size_t n = source_.read(buffer_.data() + end_, buffer_.size() - end_);
            if (n == 0)
                return false;
            end_ += n;
        }
        // Top up opportunistically so small reads stay in memory.
        if (end_ < buffer_.size() / 2) {
            size_t n = source_.read(buffer_.data() + end_, buffer_.size() - end_);
            end_ += n;
        }
        report();
        return true;
    }

    void report()
    {
        if (control_.cancel && control_.cancel->load(std::memory_order_relaxed))
            throw LoadCancelled();
        if (control_.progress)
            control_.progress(source_.fileBytesRead(), fileSize_);
    }

    ByteSource &source_;
    uint64_t fileSize_;
    const LoadControl control_;
    std::vector<char> buffer_;
    size_t pos_ = 0;
    size_t end_ = 0;
    uint64_t base_ = 0;
};

} // namespace memlens
