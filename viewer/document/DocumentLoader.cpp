#include "document/DocumentLoader.h"

#include "model/LoadError.h"

#include <atomic>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QPointer>
#include <QThread>

namespace memlens {

struct DocumentLoader::Job {
    quint64 id = 0;
    std::atomic<bool> cancel{false};
};

DocumentLoader::DocumentLoader(QObject *parent) : QObject(parent) {}

DocumentLoader::~DocumentLoader()
{
    cancel();
    if (thread_)
        thread_->wait();
}

void DocumentLoader::cancel()
{
    if (job_)
        job_->cancel = true;
}

void DocumentLoader::post(quint64 job, std::function<void(DocumentLoader &)> deliver)
{
    QPointer<DocumentLoader> self(this);
    QMetaObject::invokeMethod(this, [self, job, deliver = std::move(deliver)] {
        if (self && self->job_ && self->job_->id == job)
            deliver(*self);
    });
}

void DocumentLoader::load(const QString &path, StopAfter stopAfter)
{
    cancel();
    if (thread_)
        thread_->wait();
    auto job = std::make_shared<Job>();
    job->id = ++nextJob_;
    job_ = job;
    delete thread_;
    thread_ = QThread::create([this, job, path, stopAfter, cache = cache_] {
        QElapsedTimer throttle;
        throttle.start();
        PipelineSink sink;
        sink.progress = [&](double fraction, LoadStage stage) {
            // At most ~20 updates a second reach the GUI thread.
            if (throttle.elapsed() < 50 && fraction < 1.0)
                return;
            throttle.restart();
            const QString name = QCoreApplication::translate("memlens", std::string(loadStageName(stage)).c_str());
            post(job->id, [fraction, name](DocumentLoader &self) { emit self.progress(fraction, name); });
        };
        sink.document = [&](std::shared_ptr<const Document> doc) {
            post(job->id, [doc, last = stopAfter == StopAfter::Document](DocumentLoader &self) {
                if (last)
                    self.job_.reset();
                emit self.documentReady(doc);
            });
        };
        sink.timeline = [&](std::shared_ptr<const TimelineLayouts> timeline) {
            post(job->id, [timeline](DocumentLoader &self) {
                self.job_.reset();
                emit self.timelineReady(timeline);
            });
        };
        try {
            runDocumentPipeline(path.toStdString(), &job->cancel, sink, stopAfter, cache.get());
        } catch (const LoadCancelled &) {
            post(job->id, [](DocumentLoader &self) {
                self.job_.reset();
                emit self.cancelled();
            });
        } catch (const std::exception &e) {
            const QString error = QString::fromUtf8(e.what());
            post(job->id, [error](DocumentLoader &self) {
                self.job_.reset();
                emit self.failed(error);
            });
        }
    });
    thread_->start();
}

} // namespace memlens
