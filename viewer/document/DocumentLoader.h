#pragma once
// Loads a Document on a worker thread with progress and cancel. Each load is a job; results of
// a job that was cancelled or superseded are dropped, never delivered.
#include "document/Document.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

class QThread;

namespace memlens {

class DocumentLoader : public QObject {
    Q_OBJECT

public:
    explicit DocumentLoader(QObject *parent = nullptr);
    ~DocumentLoader() override;

    void load(const QString &path);
    void cancel();
    bool isRunning() const { return running_; }
    // Blocks until the current job ends (for the headless renderer and tests).
    void wait();

signals:
    // Fraction done (0–1) of the current stage, and what it is doing.
    void progress(double fraction, const QString &stage);
    // The summary's data is ready (the timeline's is not yet).
    void indexed(std::shared_ptr<const memlens::Document> document);
    void loaded(std::shared_ptr<memlens::Document> document);
    void failed(const QString &message);
    void cancelled();

private:
    struct Job;
    void finish(quint64 job, std::shared_ptr<Document> doc, const QString &error, bool cancelled);

    std::shared_ptr<Job> job_;
    quint64 nextJob_ = 0;
    bool running_ = false;
    QThread *thread_ = nullptr;
};

} // namespace memlens
