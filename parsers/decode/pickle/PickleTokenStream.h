#pragma once
// Hands the tokenizer's chunks to the stack machine. For a large file the tokenizer runs
// ahead on a thread of its own through a small ring of chunks; for a small one (and in the
// fuzzers) it fills each chunk when asked, on the caller's thread. The chunks a thread
// has published are not written again until the machine has moved past them.
#include "decode/pickle/PickleTokenizer.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace memlens {

class PickleTokenStream {
public:
    // `idle` is work either thread may do: it runs on whichever is about to wait for the other
    // (background only), so that it is done by the one that has time.
    PickleTokenStream(ByteReader &in, bool background, std::function<void()> idle = {});
    // Stops the tokenizer, also when the machine gave up early.
    ~PickleTokenStream();
    PickleTokenStream(const PickleTokenStream &) = delete;
    PickleTokenStream &operator=(const PickleTokenStream &) = delete;

    // The next chunk; the one returned before is given back. Empty after the last one.
    const TokenChunk &next();

    // Files at least this large are tokenized on a second thread: its start costs tens of
    // microseconds, decoding such a file milliseconds.
    static constexpr uint64_t kBackgroundFromBytes = 256u << 10;
    // Files at least this large have the two threads spin briefly before they sleep.
    static constexpr uint64_t kSpinFromBytes = 64u << 20;

private:
    void produce();
    // Spins a little before sleeping, when each side has a core of its own.
    template <typename Ready> void spinUntil(Ready ready) const;

    // When the sides spin (a core each, a file of kSpinFromBytes or more), a ring of eight
    // chunks: with four the machine (the slower side) still waited whenever the tokenizer's
    // reads came in a burst. Otherwise four, which stay in the cache as the threads take turns.
    static constexpr size_t kRing = 8;
    static constexpr size_t kRingOnOneCore = 4;
    PickleTokenizer tokenizer_;
    std::function<void()> idle_;
    std::array<TokenChunk, kRing> ring_;
    TokenChunk empty_;

    std::mutex mutex_;
    std::condition_variable changed_;
    // Written under the mutex; atomic so that a side may spin on them without it.
    std::atomic<size_t> produced_{0};   // chunks published
    std::atomic<size_t> consumed_{0};   // chunks handed to the machine
    std::atomic<bool> finished_{false}; // the tokenizer has published its last chunk
    bool stop_ = false;
    bool spin_ = false;
    size_t ringSize_ = kRingOnOneCore; // the chunks in use
    std::thread thread_;
};

} // namespace memlens
