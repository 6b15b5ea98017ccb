#include "decode/pickle/PickleTokenStream.h"

#include <system_error>

namespace memlens {

PickleTokenStream::PickleTokenStream(ByteReader &in, bool background, std::function<void()> published)
    : tokenizer_(in), published_(std::move(published))
{
    if (!background)
        return;
    try {
        thread_ = std::thread([this] { produce(); });
    } catch (const std::system_error &) {
        // No second thread to be had: next() tokenizes on this one.
    }
}

PickleTokenStream::~PickleTokenStream()
{
    if (!thread_.joinable())
        return;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void PickleTokenStream::produce()
{
    for (size_t n = 0;; ++n) {
        {
            std::unique_lock lock(mutex_);
            // Slot n % kRing is free once the machine has taken chunk n - kRing + 1: it
            // gives a chunk back only when it asks for the next.
            changed_.wait(lock, [&] { return stop_ || n < consumed_ + kRing - 1; });
            if (stop_)
                return;
        }
        const bool more = tokenizer_.fill(ring_[n % kRing]);
        {
            std::lock_guard lock(mutex_);
            if (more)
                produced_ = n + 1;
            else
                finished_ = true;
        }
        changed_.notify_all();
        if (!more)
            return;
        if (published_)
            published_();
    }
}

const TokenChunk &PickleTokenStream::next()
{
    if (!thread_.joinable())
        return tokenizer_.fill(ring_[0]) ? ring_[0] : empty_;
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return produced_ > consumed_ || finished_; });
    if (produced_ == consumed_)
        return empty_;
    const TokenChunk &chunk = ring_[consumed_ % kRing];
    ++consumed_;
    lock.unlock();
    changed_.notify_all();
    return chunk;
}

} // namespace memlens
