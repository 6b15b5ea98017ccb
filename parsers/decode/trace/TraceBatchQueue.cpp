#include "decode/trace/TraceBatchQueue.h"

#include "memory/LargeBuffers.h"

#include <system_error>

namespace memlens {

void reserveFaultedIn(std::vector<char> &bytes, size_t size)
{
    if (bytes.capacity() >= size)
        return;
    bytes.reserve(size);
    prefault(bytes.data(), size);
}

TraceBatchQueue::TraceBatchQueue(unsigned workers)
{
    try {
        for (unsigned i = 0; i < workers; ++i)
            threads_.emplace_back([this] { work(); });
    } catch (const std::system_error &) {
        // Fewer threads than asked for; with none the caller parses on its own.
    }
}

TraceBatchQueue::~TraceBatchQueue()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    for (std::thread &t : threads_)
        t.join();
}

size_t TraceBatchQueue::inFlight()
{
    std::lock_guard lock(mutex_);
    return batches_.size();
}

void TraceBatchQueue::push(std::unique_ptr<TraceBatch> batch)
{
    {
        std::lock_guard lock(mutex_);
        batches_.push_back(std::move(batch));
    }
    changed_.notify_all();
}

std::unique_ptr<TraceBatch> TraceBatchQueue::pop()
{
    std::unique_lock lock(mutex_);
    if (batches_.empty())
        return nullptr;
    // Rather than wait for the oldest, the caller parses one no worker has taken.
    while (!batches_.front()->parsed) {
        if (nextToParse_ < batches_.size())
            parseNext(lock);
        else
            changed_.wait(lock);
    }
    std::unique_ptr<TraceBatch> batch = std::move(batches_.front());
    batches_.pop_front();
    --nextToParse_;
    return batch;
}

std::unique_ptr<TraceBatch> TraceBatchQueue::fresh(size_t size)
{
    std::unique_ptr<TraceBatch> batch;
    {
        std::lock_guard lock(mutex_);
        if (!spare_.empty()) {
            batch = std::move(spare_.back());
            spare_.pop_back();
        }
    }
    if (!batch)
        batch = std::make_unique<TraceBatch>();
    reserveFaultedIn(batch->bytes, size);
    batch->bytes.resize(size);
    batch->events.clear();
    batch->error = simdjson::SUCCESS;
    batch->parsed = false;
    return batch;
}

void TraceBatchQueue::giveBack(std::unique_ptr<TraceBatch> batch)
{
    std::lock_guard lock(mutex_);
    spare_.push_back(std::move(batch));
}

void TraceBatchQueue::parseNext(std::unique_lock<std::mutex> &lock)
{
    TraceBatch *batch = batches_[nextToParse_++].get();
    lock.unlock();
    // The batch stays where it is until it is marked parsed: only this thread touches it.
    batch->bytes[batch->end + 1] = ']';
    batch->error = parseTraceBatch(batch->parser, simdjson::padded_string_view(batch->bytes.data(), batch->end + 2, batch->bytes.size()), batch->events);
    batch->bytes[batch->end + 1] = ',';
    lock.lock();
    batch->parsed = true;
    changed_.notify_all();
}

void TraceBatchQueue::work()
{
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return stop_ || nextToParse_ < batches_.size(); });
        if (stop_)
            return;
        parseNext(lock);
    }
}

} // namespace memlens
