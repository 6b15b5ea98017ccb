#include "decode/pickle/PickleTokenStream.h"

#include "memory/UsableCores.h"

#include <system_error>

namespace memlens {

namespace {

// A chunk takes the tokenizer ~60 µs; a wait longer than a few of these is a slow side, not a
// hand-over, and sleeps.
constexpr int kSpins = 8192;

} // namespace

template <typename Ready> void PickleTokenStream::spinUntil(Ready ready) const
{
    // With a core each the other side is usually microseconds away: a futex sleep and wake-up
    // per chunk (14,000 of them in a 1 GB file) cost more than the wait.
    for (int k = 0; spin_ && k < kSpins && !ready(); ++k) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
}

PickleTokenStream::PickleTokenStream(ByteReader &in, bool background, std::function<void()> idle)
    : tokenizer_(in), idle_(std::move(idle))
{
    if (!background)
        return;
    // Not for a file of a few thousand chunks or fewer: the sleeps it saves are milliseconds
    // there, and spinning would take the core the window's own start needs beside it.
    spin_ = usableCores() >= 2 && in.fileSize() >= kSpinFromBytes;
    ringSize_ = spin_ ? kRing : kRingOnOneCore;
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
            // Slot n % ringSize_ is free once the machine has taken chunk n - ringSize_ + 1: it
            // gives a chunk back only when it asks for the next.
            auto free = [&] { return n < consumed_.load(std::memory_order_acquire) + ringSize_ - 1; };
            if (!free() && idle_)
                idle_();
            spinUntil(free);
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return stop_ || free(); });
            if (stop_)
                return;
        }
        const bool more = tokenizer_.fill(ring_[n % ringSize_]);
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
    }
}

const TokenChunk &PickleTokenStream::next()
{
    if (!thread_.joinable())
        return tokenizer_.fill(ring_[0]) ? ring_[0] : empty_;
    auto ready = [&] {
        return produced_.load(std::memory_order_acquire) > consumed_.load(std::memory_order_relaxed) ||
               finished_.load(std::memory_order_acquire);
    };
    if (!ready() && idle_)
        idle_();
    spinUntil(ready);
    std::unique_lock lock(mutex_);
    changed_.wait(lock, ready);
    if (produced_ == consumed_)
        return empty_;
    const TokenChunk &chunk = ring_[consumed_ % ringSize_];
    ++consumed_;
    lock.unlock();
    changed_.notify_all();
    return chunk;
}

} // namespace memlens
