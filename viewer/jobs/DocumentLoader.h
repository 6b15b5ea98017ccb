#pragma once
// Runs the load pipeline on a worker thread with progress and cancel, and hands each stage to
// the GUI thread as an immutable value. Each load is a job; a job that was cancelled or
// superseded has its results dropped, never delivered.
#include "jobs/JobRunner.h"
#include "pipeline/DocumentPipeline.h"

#include <functional>
#include <memory>
#include <QObject>
#include <QString>

namespace memlens {

class DocumentLoader : public QObject {
    Q_OBJECT

public:
    explicit DocumentLoader(QObject *parent = nullptr);
    ~DocumentLoader() override;

    // StopAfter::Document ends the job with documentReady (no timeline is built).
    void load(const QString &path, StopAfter stopAfter = StopAfter::Timeline);
    // Rank `rank`'s dumps in `folder`, stitched into one run (RankStitch).
    void loadStitched(const QString &folder, int rank);
    // Loads go through this cache (null: none).
    void setCache(std::shared_ptr<const SnapshotCache> cache) { cache_ = std::move(cache); }
    void cancel();

signals:
    // Fraction done (0–1) of the current stage, and what it is doing.
    void progress(double fraction, const QString &stage);
    // A file's first frame: the timeline's layouts with a document of each device's index and
    // basic figures (no summary yet: DeviceFigures::summarised false). A load that sends it
    // sends no documentReady: timelineReady brings the summarised document.
    void indexedReady(std::shared_ptr<const memlens::TimelineLayouts> timeline);
    // Stage 1: the document (the summary can be shown; the timeline cannot yet).
    void documentReady(std::shared_ptr<const memlens::Document> document);
    // Stage 2: the timeline's layouts for that document, which has no advice yet.
    void timelineReady(std::shared_ptr<const memlens::TimelineLayouts> timeline);
    // Stage 3, the last: the same layouts with a document that has the advice.
    void adviceReady(std::shared_ptr<const memlens::TimelineLayouts> timeline);
    void failed(const QString &message);
    void cancelled();

private:
    // Runs `work` as the job, with a sink that posts each stage to the GUI thread.
    void run(std::function<void(const Job &, const PipelineSink &)> work, StopAfter stopAfter);

    std::shared_ptr<const SnapshotCache> cache_;
    JobRunner jobs_{this}; // last: joined before the rest goes
};

} // namespace memlens
