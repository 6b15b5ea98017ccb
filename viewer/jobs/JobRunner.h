#pragma once
// One background job at a time for an object on the GUI thread (like hotspot's JobTracker):
// starting a job supersedes the one before (asked to stop, then joined), and what a job posts
// back reaches its owner only while that job is the current one, so a stale job's results are
// dropped, never delivered. Results cross threads as values captured by the posted function.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <QObject>
#include <QPointer>
#include <thread>

namespace memlens {

class JobRunner;

// What a running job sees: whether it was asked to stop, and a way to hand results back.
class Job {
public:
    bool cancelled() const { return cancel_->load(std::memory_order_relaxed); }
    const std::atomic<bool> *cancelFlag() const { return cancel_.get(); }
    // Runs `deliver` on the owner's thread, if the owner still exists and this job is current.
    void post(std::function<void()> deliver) const;
    // The same, returning once `deliver` has run, the job is cancelled, or `atMost` has passed:
    // a delivery dropped as stale, or an owner's thread busy elsewhere, holds the job no longer.
    void postAndWait(std::function<void()> deliver, std::chrono::milliseconds atMost) const;

private:
    friend class JobRunner;
    Job(JobRunner *runner, QObject *owner, quint64 id, std::shared_ptr<std::atomic<bool>> cancel)
        : runner_(runner), owner_(owner), id_(id), cancel_(std::move(cancel))
    {
    }
    JobRunner *runner_;
    QPointer<QObject> owner_;
    quint64 id_;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

class JobRunner {
public:
    // `owner` receives the deliveries; the runner must be destroyed no later than the owner.
    explicit JobRunner(QObject *owner) : owner_(owner) {}
    ~JobRunner() { stop(); }
    JobRunner(const JobRunner &) = delete;
    JobRunner &operator=(const JobRunner &) = delete;

    // Supersedes the current job and runs `work` on a thread of its own.
    void start(std::function<void(const Job &)> work);
    // Asks the current job to stop; what it posts afterwards (e.g. that it stopped) still arrives.
    void cancel();
    // Asks the current job to stop, waits for it, and drops whatever it posts.
    void stop();
    // The current job delivered its last result: nothing it posts afterwards arrives.
    void finish() { current_ = 0; }
    bool isCurrent(quint64 id) const { return id != 0 && id == current_; }

private:
    QObject *owner_;
    quint64 current_ = 0; // 0: no job's results are wanted
    quint64 next_ = 0;
    std::thread thread_;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

} // namespace memlens
