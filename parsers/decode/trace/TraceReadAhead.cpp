#include "decode/trace/TraceReadAhead.h"

#include <algorithm>
#include <cstring>
#include <system_error>

namespace memlens {

TraceReadAhead::TraceReadAhead(ByteReader &reader, bool threaded) : reader_(reader), start_(reader.offset())
{
    if (!threaded)
        return;
    try {
        thread_ = std::thread([this] { read(); });
    } catch (const std::system_error &) {
        // No thread to be had: the scanner reads for itself.
    }
}

TraceReadAhead::~TraceReadAhead()
{
    if (!thread_.joinable())
        return;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    emptied_.notify_one();
    thread_.join();
}

void TraceReadAhead::read()
{
    try {
        for (;;) {
            Chunk *next;
            {
                std::unique_lock lock(mutex_);
                emptied_.wait(lock, [&] { return stop_ || ready_ < kChunks; });
                if (stop_)
                    return;
                // Not the scanner's chunk: it only takes chunks_[first_], and ready_ < kChunks.
                next = &chunks_[(first_ + ready_) % kChunks];
            }
            if (next->bytes.empty())
                next->bytes.resize(kChunk); // its fresh pages touched here, not on the scanner's thread
            next->size = reader_.readSome(next->bytes.data(), kChunk);
            next->taken = 0;
            {
                std::lock_guard lock(mutex_);
                ++ready_;
            }
            filled_.notify_one();
            if (next->size == 0)
                return;
        }
    } catch (...) {
        {
            std::lock_guard lock(mutex_);
            error_ = std::current_exception();
        }
        filled_.notify_one();
    }
}

size_t TraceReadAhead::readSome(char *out, size_t capacity)
{
    if (!thread_.joinable()) {
        const size_t n = reader_.readSome(out, capacity);
        handedOut_ += n;
        return n;
    }
    Chunk *oldest;
    {
        std::unique_lock lock(mutex_);
        filled_.wait(lock, [&] { return ready_ > 0 || error_; });
        if (ready_ == 0)
            std::rethrow_exception(error_);
        oldest = &chunks_[first_];
    }
    if (oldest->size == 0)
        return 0; // the end stays where it is: every later call ends there too
    const size_t n = std::min(capacity, oldest->size - oldest->taken);
    std::memcpy(out, oldest->bytes.data() + oldest->taken, n);
    oldest->taken += n;
    handedOut_ += n;
    if (oldest->taken == oldest->size) {
        {
            std::lock_guard lock(mutex_);
            first_ = (first_ + 1) % kChunks;
            --ready_;
        }
        emptied_.notify_one();
    }
    return n;
}

} // namespace memlens
