#pragma once
// Parses batches of trace events on worker threads while the reader cuts the next ones, and
// hands them back in file order. Each batch owns its bytes and its parser (the events' views
// point into both: simdjson unescapes strings into the parser); a batch whose events the
// caller has taken comes back for a later one, buffers and all.
#include "decode/trace/TraceBatchParser.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace memlens {

struct TraceBatch {
    std::vector<char> bytes;  // '[', then the events' text; room for simdjson's padding after
    size_t end = 0;           // where the ',' after the last event is, counted from bytes[1]
    std::vector<TraceEvent> events;
    simdjson::error_code error = simdjson::SUCCESS;
    bool parsed = false;
    simdjson::ondemand::parser parser;
};

// Room for `size` bytes, its pages faulted in at once (memory/LargeBuffers.h) before resize()
// zeroes them: a page at a time, the first batches' buffers took ~0.1 s of a trace's start.
void reserveFaultedIn(std::vector<char> &bytes, size_t size);

class TraceBatchQueue {
public:
    explicit TraceBatchQueue(unsigned workers);
    ~TraceBatchQueue();
    TraceBatchQueue(const TraceBatchQueue &) = delete;
    TraceBatchQueue &operator=(const TraceBatchQueue &) = delete;

    unsigned workers() const { return static_cast<unsigned>(threads_.size()); }
    size_t inFlight();
    void push(std::unique_ptr<TraceBatch> batch);
    // The oldest batch once parsed (the caller helps parse meanwhile); null when none is in flight.
    std::unique_ptr<TraceBatch> pop();
    // An empty batch with room for `size` bytes, one given back when there is one.
    std::unique_ptr<TraceBatch> fresh(size_t size);
    void giveBack(std::unique_ptr<TraceBatch> batch);

private:
    void work();
    // Parses the oldest batch nobody has taken; `lock` is released meanwhile.
    void parseNext(std::unique_lock<std::mutex> &lock);

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::unique_ptr<TraceBatch>> batches_; // in file order
    size_t nextToParse_ = 0;                          // index into batches_
    std::vector<std::unique_ptr<TraceBatch>> spare_;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

} // namespace memlens
