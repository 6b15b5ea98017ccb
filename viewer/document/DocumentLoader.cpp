#include "document/DocumentLoader.h"

#include "model/LoadError.h"

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
    wait();
}

void DocumentLoader::cancel()
{
    if (job_)
        job_->cancel = true;
}

void DocumentLoader::wait()
{
    if (thread_) {
        thread_->wait();
        QCoreApplication::sendPostedEvents(this);
    }
}

void DocumentLoader::load(const QString &path)
{
    cancel();
    if (thread_)
        thread_->wait();
    auto job = std::make_shared<Job>();
    job->id = ++nextJob_;
    job_ = job;
    running_ = true;
    QPointer<DocumentLoader> self(this);
    delete thread_;
    thread_ = QThread::create([self, job, path] {
        std::shared_ptr<Document> doc;
        QString error;
        bool cancelled = false;
        QElapsedTimer throttle;
        throttle.start();
        auto report = [&](double fraction, const QString &stage) {
            // At most ~20 updates a second reach the GUI thread.
            if (throttle.elapsed() < 50 && fraction < 1.0)
                return;
            throttle.restart();
            if (self)
                QMetaObject::invokeMethod(self, [self, fraction, stage, id = job->id] {
                    if (self && self->job_ && self->job_->id == id)
                        emit self->progress(fraction, stage);
                });
        };
        try {
            auto indexed = [&](std::shared_ptr<const Document> partial) {
                if (self)
                    QMetaObject::invokeMethod(self, [self, partial, id = job->id] {
                        if (self && self->job_ && self->job_->id == id)
                            emit self->indexed(partial);
                    });
            };
            doc = buildDocument(path, &job->cancel, report, indexed);
        } catch (const LoadCancelled &) {
            cancelled = true;
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
        }
        if (self)
            QMetaObject::invokeMethod(self, [self, doc, error, cancelled, id = job->id] {
                if (self)
                    self->finish(id, doc, error, cancelled);
            });
    });
    thread_->start();
}

void DocumentLoader::finish(quint64 job, std::shared_ptr<Document> doc, const QString &error, bool cancelled)
{
    if (!job_ || job_->id != job)
        return; // superseded: drop it
    running_ = false;
    job_.reset();
    if (cancelled)
        emit this->cancelled();
    else if (!error.isEmpty())
        emit failed(error);
    else
        emit loaded(std::move(doc));
}

} // namespace memlens
