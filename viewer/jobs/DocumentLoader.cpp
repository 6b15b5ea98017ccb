#include "jobs/DocumentLoader.h"

#include "jobs/DeviceAdvice.h"
#include "model/LoadError.h"
#include "jobs/StitchedRunStages.h"

#include <QCoreApplication>
#include <QElapsedTimer>

namespace memlens {

DocumentLoader::DocumentLoader(QObject *parent) : QObject(parent) {}

DocumentLoader::~DocumentLoader() = default;

void DocumentLoader::cancel()
{
    jobs_.cancel();
}

void DocumentLoader::load(const QString &path, StopAfter stopAfter)
{
    run([path, stopAfter, cache = cache_](const Job &job, const PipelineSink &sink) {
        runDocumentPipeline(path.toStdString(), job.cancelFlag(), sink, stopAfter, cache.get(), CacheWriting::WhenStarted);
    }, stopAfter);
}

void DocumentLoader::loadStitched(const QString &folder, int rank)
{
    run([folder, rank, cache = cache_](const Job &job, const PipelineSink &sink) {
        runStitchedStages(folder.toStdString(), rank, job.cancelFlag(), sink, cache.get());
    }, StopAfter::Timeline);
}

void DocumentLoader::run(std::function<void(const Job &, const PipelineSink &)> work, StopAfter stopAfter)
{
    jobs_.start([this, work = std::move(work), stopAfter](const Job &job) {
        QElapsedTimer throttle;
        throttle.start();
        PipelineSink sink;
        sink.advise = adviseDevice;
        sink.progress = [&](double fraction, LoadStage stage) {
            // At most ~20 updates a second reach the GUI thread.
            if (throttle.elapsed() < 50 && fraction < 1.0)
                return;
            throttle.restart();
            const QString name = QCoreApplication::translate("memlens", std::string(loadStageName(stage)).c_str());
            job.post([this, fraction, name] { emit progress(fraction, name); });
        };
        bool indexedSent = false;
        if (stopAfter == StopAfter::Timeline) {
            sink.indexed = [&](std::shared_ptr<const TimelineLayouts> timeline) {
                indexedSent = true;
                // The summary's work waits until the window has drawn this stage: on both cores
                // beside it, it held the first frame back (~40 ms of a 12 M-entry run's from the
                // cache). A window busy elsewhere holds it for half a second at most.
                job.postAndWait([this, timeline] { emit indexedReady(timeline); }, std::chrono::milliseconds(500));
            };
        }
        sink.document = [&](std::shared_ptr<const Document> doc) {
            if (indexedSent)
                return; // the window shows the indexed document until the timeline stage's
            job.post([this, doc, last = stopAfter == StopAfter::Document] {
                if (last)
                    jobs_.finish();
                emit documentReady(doc);
            });
        };
        sink.timeline = [&](std::shared_ptr<const TimelineLayouts> timeline) {
            job.post([this, timeline] { emit timelineReady(timeline); });
        };
        sink.advised = [&](std::shared_ptr<const TimelineLayouts> timeline) {
            job.post([this, timeline] {
                jobs_.finish();
                emit adviceReady(timeline);
            });
        };
        try {
            work(job, sink);
        } catch (const LoadCancelled &) {
            job.post([this] {
                jobs_.finish();
                emit cancelled();
            });
        } catch (const std::exception &e) {
            const QString error = QString::fromUtf8(e.what());
            job.post([this, error] {
                jobs_.finish();
                emit failed(error);
            });
        }
    });
}

} // namespace memlens
