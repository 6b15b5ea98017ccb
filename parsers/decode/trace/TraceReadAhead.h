#pragma once
// A compressed trace's bytes for its scanner, decompressed a few chunks ahead on a thread of
// their own: the scanner's thread also hands events to the sink and parses a share of the
// batches, and inflating a 1 GB trace (.json.gz, as tensorboard_trace_handler writes with
// use_gzip) took it ~1 s. Without the thread (one core; a file stored plain, where the copy out
// of the chunks cost the scanner's thread what the kernel's copy had: 1.03-1.06 -> 1.08-1.14 s),
// the bytes come straight from the reader.
#include "decode/input/ByteReader.h"

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace memlens {

class TraceReadAhead {
public:
    TraceReadAhead(ByteReader &reader, bool threaded);
    ~TraceReadAhead(); // stops the thread, which may be mid-read
    TraceReadAhead(const TraceReadAhead &) = delete;
    TraceReadAhead &operator=(const TraceReadAhead &) = delete;

    // Up to `capacity` bytes, at least one unless at the end. What the reading thread caught
    // (a read error, a cancel) is thrown here, after the bytes read before it.
    size_t readSome(char *out, size_t capacity);
    // Offset in the decoded stream of the next byte readSome() gives.
    uint64_t offset() const { return start_ + handedOut_; }

    static constexpr size_t kChunk = 1 << 20;

private:
    struct Chunk {
        std::vector<char> bytes;
        size_t size = 0; // 0: the end of the stream
        size_t taken = 0;
    };
    static constexpr size_t kChunks = 4;

    void read();

    ByteReader &reader_;
    const uint64_t start_;
    uint64_t handedOut_ = 0;
    std::mutex mutex_;
    std::condition_variable filled_, emptied_;
    std::array<Chunk, kChunks> chunks_;
    size_t first_ = 0, ready_ = 0; // chunks_[first_] is the oldest of `ready_` read ones
    bool stop_ = false;
    std::exception_ptr error_;
    std::thread thread_;
};

} // namespace memlens
