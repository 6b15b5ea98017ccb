// Timeline benchmark: time from opening a file to the first complete timeline frame, then the
// median and worst frame time over 200 random zoom/pan windows (offscreen, 1600x900). With
// --cache the file is opened as the GUI opens it, through the snapshot cache ($XDG_CACHE_HOME),
// and only the first frame is timed: a reopen.
#include "document/DocumentView.h"
#include "jobs/DeviceAdvice.h"
#include "pipeline/Document.h"
#include "pipeline/DocumentPipeline.h"
#include "timeline/TimelineView.h"

#include <algorithm>
#include <cstdio>
#include <QApplication>
#include <qcustomplot.h>
#include <QElapsedTimer>
#include <random>
#include <string_view>

int main(int argc, char **argv)
{
    const bool cached = argc == 3 && std::string_view(argv[2]) == "--cache";
    if (argc < 2 || (argc == 3 && !cached) || argc > 3) {
        std::fprintf(stderr, "usage: bench_timeline FILE [--cache]\n");
        return 2;
    }
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QElapsedTimer open;
    open.start();
    const memlens::SnapshotCache cache;
    // Where a reopen's time goes: the moment each load stage starts.
    std::vector<std::pair<memlens::LoadStage, double>> stages;
    // As the window does: the first frame is drawn when the indexed stage arrives (on this
    // thread, which runs the pipeline), the summary and then the advice follow it.
    memlens::DocumentView view;
    double loadedAt = 0, firstFrame = 0, summarisedAt = 0, advisedAt = 0;
    memlens::PipelineSink sink;
    sink.advise = memlens::adviseDevice; // as the window asks it
    sink.progress = [&](double, memlens::LoadStage stage) {
        if (stages.empty() || stages.back().first != stage)
            stages.emplace_back(stage, open.elapsed() / 1000.0);
    };
    sink.indexed = [&](std::shared_ptr<const memlens::TimelineLayouts> layouts) {
        loadedAt = open.elapsed() / 1000.0;
        view.setDocument({layouts->document, layouts});
        view.showPage(memlens::Page::Timeline);
        view.resize(1600, 900);
        view.show();
        QApplication::processEvents();
        view.timeline()->plot()->replot(QCustomPlot::rpImmediateRefresh);
        firstFrame = open.elapsed() / 1000.0;
    };
    sink.timeline = [&](std::shared_ptr<const memlens::TimelineLayouts> layouts) {
        view.swapStage(std::move(layouts));
        QApplication::processEvents();
        summarisedAt = open.elapsed() / 1000.0;
    };
    sink.advised = [&](std::shared_ptr<const memlens::TimelineLayouts>) { advisedAt = open.elapsed() / 1000.0; };
    memlens::runDocumentPipeline(argv[1], nullptr, sink, memlens::StopAfter::Timeline, cached ? &cache : nullptr);
    const auto doc = view.state()->document();
    memlens::TimelineView *timeline = view.timeline();
    for (size_t i = 0; i < stages.size() && stages[i].second < loadedAt; ++i) {
        const double end = std::min(i + 1 < stages.size() ? stages[i + 1].second : loadedAt, loadedAt);
        std::printf("  %-26s %.2f s\n", std::string(memlens::loadStageName(stages[i].first)).c_str(), end - stages[i].second);
    }
    std::printf("  %-26s %.2f s\n", "Drawing the first frame", firstFrame - loadedAt);
    std::printf("  %-26s %.2f s (after the first frame)\n", "Summarising", summarisedAt - firstFrame);
    std::printf("  %-26s %.2f s (after the summary)\n", "Finding what would help", advisedAt - summarisedAt);
    if (cached) {
        std::printf("reopen (from the cache) to first timeline frame: %.2f s\n", firstFrame);
        return 0;
    }

    std::mt19937 rng(7);
    const double xMax = view.state()->axis().xMax();
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> times;
    double worst = 0, worstWidth = 0;
    for (int i = 0; i < 200; ++i) {
        const double width = xMax * std::pow(10.0, -4.0 * unit(rng)); // from the whole trace to 1/10000 of it
        const double start = (xMax - width) * unit(rng);
        view.state()->setVisibleRange({start, start + width});
        QElapsedTimer t;
        t.start();
        timeline->plot()->replot(QCustomPlot::rpImmediateRefresh);
        times.push_back(t.nsecsElapsed() / 1e6);
        if (times.back() > worst) {
            worst = times.back();
            worstWidth = width / xMax;
        }
    }
    std::sort(times.begin(), times.end());
    std::printf("events: %zu\nopen to first timeline frame: %.2f s\nframe time over 200 random windows: median %.1f ms, "
                "90th %.1f ms, worst %.1f ms (a window of %.2g of the run)\n",
                doc->device(doc->devices.begin()->first)->index->eventCount(), firstFrame, times[100], times[180], times.back(), worstWidth);
    return 0;
}
