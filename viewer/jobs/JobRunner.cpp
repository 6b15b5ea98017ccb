#include "jobs/JobRunner.h"

#include <condition_variable>
#include <mutex>

namespace memlens {

void Job::post(std::function<void()> deliver) const
{
    if (!owner_)
        return;
    // Queued to the owner: Qt drops the call if the owner is gone before it runs, and while the
    // owner lives, so does its runner.
    QMetaObject::invokeMethod(owner_, [runner = runner_, id = id_, deliver = std::move(deliver)] {
        if (runner->isCurrent(id))
            deliver();
    }, Qt::QueuedConnection);
}

void Job::postAndWait(std::function<void()> deliver, std::chrono::milliseconds atMost) const
{
    struct Delivered {
        std::mutex mutex;
        std::condition_variable ran;
        bool done = false;
    };
    auto delivered = std::make_shared<Delivered>();
    post([delivered, deliver = std::move(deliver)] {
        deliver();
        std::lock_guard lock(delivered->mutex);
        delivered->done = true;
        delivered->ran.notify_all();
    });
    const auto until = std::chrono::steady_clock::now() + atMost;
    std::unique_lock lock(delivered->mutex);
    // Woken now and then to see a cancel, which nothing signals here.
    while (!delivered->done && !cancelled() && std::chrono::steady_clock::now() < until)
        delivered->ran.wait_for(lock, std::chrono::milliseconds(5));
}

void JobRunner::start(std::function<void(const Job &)> work)
{
    stop();
    current_ = ++next_;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    const Job job(this, owner_, current_, cancel_);
    thread_ = std::thread([job, work = std::move(work)] { work(job); });
}

void JobRunner::cancel()
{
    if (cancel_)
        cancel_->store(true);
}

void JobRunner::stop()
{
    cancel();
    if (thread_.joinable())
        thread_.join();
    current_ = 0;
}

} // namespace memlens
