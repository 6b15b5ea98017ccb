#include "jobs/JobRunner.h"

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
