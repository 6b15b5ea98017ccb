// The viewer's timeline/ and steps/: the allocation timeline (search, peak, zoom and keys, the OOM key,
// hover), and memory per step on long runs.
#include "ViewerTestSupport.h"
#include "plots/DeferredPlot.h"

#include <QVBoxLayout>

using namespace memlens;

namespace {

// A file's load stages as the window's loader receives them: the first frame's, the summarised
// document's, the advised one's.
struct LoadStages {
    std::shared_ptr<const TimelineLayouts> indexed, summarised, advised;
};

LoadStages loadStages(const QString &path)
{
    LoadStages stages;
    PipelineSink sink;
    sink.advise = adviseDevice;
    sink.indexed = [&](std::shared_ptr<const TimelineLayouts> t) { stages.indexed = std::move(t); };
    sink.timeline = [&](std::shared_ptr<const TimelineLayouts> t) { stages.summarised = std::move(t); };
    sink.advised = [&](std::shared_ptr<const TimelineLayouts> t) { stages.advised = std::move(t); };
    runDocumentPipeline(path.toStdString(), nullptr, sink, StopAfter::Timeline);
    return stages;
}

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT

private slots:
    // The window's last load stage swaps in the document with the advice: the page, device,
    // visible range and selection set on the first frame stay, the Summary gets its fixes, and
    // only then is the view loaded (before, the swap reset the range to the whole run).
    void adviceSwapKeepsWhatTheUserSet()
    {
        const LoadStages stages = loadStages(gpt2());
        const std::shared_ptr<const TimelineLayouts> first = stages.summarised, advised = stages.advised;
        QVERIFY(first && advised);
        DocumentView view;
        view.resize(1280, 800);
        view.setDocument({first->document, first});
        view.showPage(Page::Timeline);
        view.show();
        QCOMPARE(view.summaryPage()->fixList()->count(), 0);
        const VisibleRange full = view.state()->visibleRange();
        const VisibleRange zoomed{full.first + (full.last - full.first) / 3, full.first + (full.last - full.first) / 2};
        view.state()->setVisibleRange(zoomed);
        view.state()->setSelectedEvent(EventId(100));
        QSignalSpy loaded(&view, &DocumentView::loaded);
        view.takeAdvice(advised);
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(view.document(), advised->document);
        QCOMPARE(view.currentPageKind(), Page::Timeline);
        QVERIFY(view.state()->visibleRange() == zoomed);
        QCOMPARE(view.state()->selectedEvent(), std::optional<EventId>(EventId(100)));
        QVERIFY(view.summaryPage()->fixList()->count() > 0);
        view.takeAdvice(loadStages(gpt2()).advised); // a stale job's last stage: dropped
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(view.document(), advised->document);
    }

    // The window's first frame is the indexed stage's: the timeline shows at once, the Summary
    // says it is summarising; the summarised document then swaps in on the page shown, keeping
    // the range the user zoomed to, and the timeline gains its step strip.
    void firstFrameFromTheIndex()
    {
        const auto [indexed, summarised, advised] = loadStages(gpt2());
        QVERIFY(indexed && summarised);
        DocumentView view;
        view.resize(1280, 800);
        view.setDocument({indexed->document, indexed});
        view.showPage(Page::Timeline);
        view.show();
        QCOMPARE(view.currentPageKind(), Page::Timeline);
        QVERIFY(!view.hasPage(Page::Steps)); // no steps known yet
        saveShot(&view, "first-frame-indexed");
        QVERIFY2(view.summaryPage()->factsText().contains("Summarising"), qPrintable(view.summaryPage()->factsText()));
        const VisibleRange full = view.state()->visibleRange();
        const VisibleRange zoomed{full.first + (full.last - full.first) / 4, full.first + (full.last - full.first) / 2};
        view.state()->setVisibleRange(zoomed);
        QVERIFY(view.swapStage(summarised));
        QCOMPARE(view.document(), summarised->document);
        QCOMPARE(view.currentPageKind(), Page::Timeline);
        QVERIFY(view.state()->visibleRange() == zoomed);
        QVERIFY(view.hasPage(Page::Steps));
        QVERIFY(!view.summaryPage()->factsText().contains("Summarising"));
        saveShot(&view, "first-frame-summarised");
    }

    // The indexed stage's frame is drawn before the summarised stage is shown, also when that
    // stage is already waiting as the first arrives (a small file: the plot's queued replot
    // came after it, ~30 ms later on a 6 MB run to the pixels drawn). The loader's two
    // deliveries arrive here back to back.
    void firstFrameDrawnBeforeTheSummarisedStage()
    {
        const auto [indexed, summarised, advised] = loadStages(gpt2());
        QVERIFY(indexed && summarised);
        DocumentView view;
        view.resize(1280, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showPage(Page::Timeline);
        // What is drawn is what a paint puts on screen (a replot only fills the plot's buffers).
        std::optional<bool> summarisedAtFirstFrame;
        EventWatch painted(view.timeline()->plot(), QEvent::Paint, [&] {
            if (!summarisedAtFirstFrame && view.document())
                summarisedAtFirstFrame = view.document()->devices.begin()->second.summarised;
        });
        // Neither stage passes through the Summary page on its way (its text laid out each time).
        int summaryShown = 0;
        EventWatch shown(view.summaryPage(), QEvent::Show, [&] { ++summaryShown; });
        DocumentLoader *loader = view.findChild<DocumentLoader *>();
        QVERIFY(loader);
        emit loader->indexedReady(indexed);
        emit loader->timelineReady(summarised);
        QTRY_VERIFY(summarisedAtFirstFrame.has_value());
        QCOMPARE(view.document(), summarised->document);
        QCOMPARE(view.currentPageKind(), Page::Timeline);
        QVERIFY(!*summarisedAtFirstFrame);
        QCOMPARE(summaryShown, 0);
    }

    // A plot is laid out once per frame: resizes before a paint replot it once, at that paint,
    // for the size it ends with (QCustomPlot replots at every resize, and a window showing a long
    // run's timeline for the first time drew it four times before its first frame).
    void plotReplotsOncePerFrameHoweverOftenResized()
    {
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        auto *plot = new DeferredPlot(&window);
        layout->addWidget(plot);
        window.resize(640, 480);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        int replots = 0;
        connect(plot, &QCustomPlot::beforeReplot, plot, [&] { ++replots; });
        int paints = 0;
        EventWatch painted(plot, QEvent::Paint, [&] { ++paints; });
        window.resize(800, 500);
        window.resize(900, 700);
        QCOMPARE(replots, 0);
        QTRY_VERIFY(paints > 0);
        QCOMPARE(replots, 1);
        QCOMPARE(plot->viewport(), plot->rect());
        // Laid out for the size it ends with: the axis rect fills the plot.
        QCOMPARE(plot->axisRect()->outerRect().right(), plot->rect().right());
        QCOMPARE(plot->axisRect()->outerRect().bottom(), plot->rect().bottom());
        QTest::qWait(50);
        QCOMPARE(replots, 1);
    }

    // Private pools' labels: each at its region's top, one that would overwrite the label above
    // it just below that one (the Megatron + vLLM file drew "(1, 0)" over "(0, 2)"), in the
    // pools' order.
    void poolLabelsDoNotOverlap()
    {
        QCOMPARE(stackedLabelTops({100, 300}, 15), (std::vector<double>{100, 300}));
        QCOMPARE(stackedLabelTops({207, 200, 400}, 15), (std::vector<double>{215, 200, 400}));
        QCOMPARE(stackedLabelTops({50, 50, 50}, 15), (std::vector<double>{50, 65, 80}));
        QCOMPARE(stackedLabelTops({}, 15), std::vector<double>{});
    }

    // Step numbers wider than the steps: every k-th step is numbered (1, 2, 5, 10, …), each label
    // with room; at ~22 px per step a 3-digit number (about 27 px) goes on every second step
    // (before, no step had a number there).
    void stepLabelsWhenStepsAreNarrow()
    {
        QCOMPARE(stepLabelStride(60, 27), int64_t(1));
        QCOMPARE(stepLabelStride(22, 27), int64_t(2));
        QCOMPARE(stepLabelStride(10, 27), int64_t(5));
        QCOMPARE(stepLabelStride(6, 27), int64_t(5));
        QCOMPARE(stepLabelStride(2, 27), int64_t(20));
        for (double perStep : {0.5, 3.0, 7.0, 13.0, 22.0, 40.0})
            QVERIFY(double(stepLabelStride(perStep, 27)) * perStep >= 27);
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    // At 400 steps the whole run shows a step strip and no phase boundaries; zoomed into one
    // step its phases come back, each starting at a thin line, and the plot is never shaded.
    void manyStepsReadable()
    {
        auto doc = run400();
        const DeviceData &d = doc->devices.at(0);
        QVERIFY(d.summary.steps.size() >= 400);
        QVERIFY(d.summary.phases.size() >= 2000);
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        QCustomPlot *plot = view->timeline()->plot();
        const QRgb background = plot->palette().color(QPalette::Base).rgb();
        plot->xAxis->grid()->setVisible(false); // its dotted lines would count as drawn
        // Columns drawn on a row high above the data, below the label strip.
        auto drawnColumns = [&] {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QRect r = plot->axisRect()->rect();
            const QImage image = plot->toPixmap().toImage();
            std::vector<int> drawn;
            for (int x = r.left() + 1; x < r.right(); ++x) {
                if (image.pixel(x, r.top() + 40) != background)
                    drawn.push_back(x);
            }
            return drawn;
        };
        const std::vector<int> whole = drawnColumns();
        QVERIFY2(whole.size() <= 2, qPrintable(QString::number(whole.size()))); // the peak marker only
        const StepSummary &step = d.summary.steps[200];
        view->state()->setVisibleRange({double(step.firstEvent.index()), double(step.lastEvent.index() + 1)});
        const std::vector<int> zoomed = drawnColumns();
        // A line where each phase after the first starts (a shade would fill every column).
        QVERIFY2(zoomed.size() >= 3 && zoomed.size() <= 12, qPrintable(QString::number(zoomed.size())));
    }

    // Users' files: no marks (steps from the optimizer's frames) or torch's Optimizer.step# marks
    // only. The Steps page found their steps and the timeline's strip drew none (no phases) or
    // just the optimizer's slivers; now each step has its strip, told apart by shade.
    void stepStripWithoutMarks_data()
    {
        QTest::addColumn<QString>("marks");
        QTest::newRow("no marks") << "none";
        QTest::newRow("torch's marks only") << "torch";
    }
    void stepStripWithoutMarks()
    {
        QFETCH(QString, marks);
        QTemporaryDir dir;
        const QString file = dir.filePath("variant.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", file, "--marks", marks}, &error);
        QVERIFY2(QFile::exists(file), qPrintable(error));
        auto doc = load(file);
        const std::vector<StepSummary> &steps = doc->devices.at(0).summary.steps;
        QVERIFY(steps.size() >= 3);
        auto view = openView(doc, Page::Timeline, QSize(1200, 600));
        QCustomPlot *plot = view->timeline()->plot();
        plot->replot(QCustomPlot::rpImmediateRefresh);
        const QRect r = plot->axisRect()->rect();
        const QImage image = plot->toPixmap().toImage();
        // Along the strip's row, from the first step's start to the last one's end: shaded
        // throughout, and the shade changes where one step gives way to the next.
        auto x = [&](const StepSummary &st, bool end) {
            const EventId e = end ? st.lastEvent : st.firstEvent;
            return static_cast<int>(plot->xAxis->coordToPixel(double(e.index())));
        };
        const int from = std::max(r.left() + 1, x(steps.front(), false) + 2), to = std::min(r.right() - 1, x(steps.back(), true) - 2);
        const QRgb background = plot->palette().color(QPalette::Base).rgb();
        int shaded = 0, changes = 0;
        QRgb last = 0;
        for (int px = from; px < to; ++px) {
            const QRgb c = image.pixel(px, r.top() + 3);
            shaded += c != background;
            changes += px > from && c != last && c != background && last != background;
            last = c;
        }
        QVERIFY2(shaded >= (to - from) * 9 / 10, qPrintable(QString("%1 of %2").arg(shaded).arg(to - from)));
        QVERIFY2(changes >= int(steps.size()) - 1, qPrintable(QString::number(changes)));
    }

    // Steps narrower than a few pixels are drawn per pixel column as the range of their peaks:
    // under every step's peak the column is drawn, so no step is lost between stripes, and the
    // highest step stays visible in red. Zoomed in, they are bars again.
    void stepsNarrowerThanPixels()
    {
        auto doc = run400();
        const std::vector<StepSummary> &steps = doc->devices.at(0).summary.steps;
        QVERIFY(steps.size() >= 400);
        auto view = openView(doc, Page::Steps, QSize(1000, 600));
        StepsView *page = view->steps();
        QCustomPlot *plot = page->plot();
        plot->legend->setVisible(false);
        plot->xAxis->grid()->setVisible(false);
        plot->yAxis->grid()->setVisible(false);
        // Zoomed out to about two steps a pixel, as thousands of steps are drawn.
        plot->xAxis->setRange(-0.7, 2.0 * plot->axisRect()->width());
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY2(page->drawsEnvelope(), qPrintable(QString::number(plot->axisRect()->width())));
        const QImage image = plot->toPixmap().toImage();
        const QRgb background = plot->palette().color(QPalette::Base).rgb();
        int redAtHighest = 0;
        const size_t highest = highestStep(steps).index;
        for (size_t k = 0; k < steps.size(); ++k) {
            const int x = static_cast<int>(std::floor(plot->xAxis->coordToPixel(double(k))));
            const int y = static_cast<int>(plot->yAxis->coordToPixel(double(steps[k].peakActiveBytes) * 0.97));
            QVERIFY2(image.pixel(x, y) != background, qPrintable(QString("step %1 at %2,%3").arg(k).arg(x).arg(y)));
            if (k == highest) {
                const QColor c(image.pixel(x, y));
                redAtHighest = c.red() > 150 && c.green() < 100 ? 1 : 0;
            }
        }
        QVERIFY(redAtHighest);
        // Above the highest peak nothing of the steps is drawn.
        const int above = static_cast<int>(plot->yAxis->coordToPixel(double(steps[highest].peakActiveBytes) * 1.03));
        const QRect r = plot->axisRect()->rect();
        for (int x = r.left() + 2; x < r.right() - 1; ++x) {
            const QColor c(image.pixel(x, above));
            QVERIFY2(c.rgb() == background || c.red() > c.blue(), qPrintable(QString("x %1").arg(x))); // only the reserved line
        }
        plot->xAxis->setRange(-0.5, 4.5);
        plot->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(!page->drawsEnvelope());
    }

    // The Steps page: one bar per step; clicking a step shows exactly its events on the
    // timeline. Live's "created in an earlier step, never freed" shows a planted leak.
    void stepsAndLeaks()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("leak.pickle");
        QString error;
        runPythonTool("plant_leak.py", {gpt2(), file}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        auto doc = load(file);
        const DeviceData &d = doc->devices.at(0);
        QCOMPARE(d.summary.steps.size(), size_t(3));
        auto view = openView(doc, Page::Steps, QSize(1400, 900));
        QVERIFY(view->steps()->readout().contains("3 steps"));
        QCustomPlot *plot = view->steps()->plot();
        plot->replot();
        // Ticks on whole steps (they were at -0.5 … 2.5), the legend below the bars and their labels.
        QVERIFY(!plot->xAxis->tickVector().isEmpty());
        for (double tick : plot->xAxis->tickVector())
            QCOMPARE(tick, std::round(tick));
        QVERIFY(plot->legend->outerRect().top() >= plot->axisRect()->outerRect().bottom());
        const int y = static_cast<int>(plot->yAxis->coordToPixel(double(d.summary.steps[1].peakActiveBytes) / 2));
        const QPoint bar1(static_cast<int>(plot->xAxis->coordToPixel(1.0)), y);
        QCOMPARE(view->steps()->stepAt(bar1), 1);
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, bar1);
        QCOMPARE(view->currentPageKind(), Page::Timeline);
        QCOMPARE(view->state()->visibleFirstEvent(), d.summary.steps[1].firstEvent);
        QCOMPARE(view->state()->visibleLastEvent(), d.summary.steps[1].lastEvent);

        const EventId cursor = d.summary.steps[2].lastEvent;
        view->state()->setSelectedEvent(cursor);
        view->showPage(Page::Live);
        view->live()->setEarlierStepOnly(true);
        QTableView *table = view->live()->table();
        int leaks = 0;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const AllocationId id(table->model()->index(row, 0).data(LiveAllocationModel::AllocationRole).toUInt());
            const Allocation &a = d.index->allocation(id);
            QCOMPARE(a.freeCompleted, kNever);
            QVERIFY(a.allocEvent < d.summary.steps[2].firstEvent);
            const auto frames = stackFrames(*doc->snapshot, d.index->detail(id).stack, true);
            leaks += !frames.empty() && doc->snapshot->frameText(frames.front()) == "train.py:42:leaky";
        }
        QCOMPARE(leaks, 2); // steps 0 and 1; step 2's is not from an earlier step
        view->live()->setEarlierStepOnly(false);
        QVERIFY(table->model()->rowCount() > 100);
    }

    // During a search the folded band (the allocations too small to draw one by one) fades with
    // the other non-matches: drawn at full strength it read as one large match.
    void foldedBandFadesDuringSearch()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        QVERIFY(applyTheme(*qApp, "light"));
        TimelineView *timeline = view->timeline();
        timeline->plot()->replot();
        const TimelineFrame &frame = timeline->bands()->lastFrame();
        // The column where the folded band is tallest above its hatched ghosts.
        size_t best = 0;
        for (size_t c = 0; c < frame.otherTop.size(); ++c) {
            const auto height = [&](size_t k) { return frame.otherTop[k] - std::max(frame.otherBottom[k], frame.otherGhostTop[k]); };
            if (frame.otherTop[c] > std::max(frame.otherBottom[c], frame.otherGhostTop[c]) && height(c) > height(best))
                best = c;
        }
        const uint64_t low = std::max(frame.otherBottom[best], frame.otherGhostTop[best]);
        QVERIFY(frame.otherTop[best] > low);
        const QPointF pixel(timeline->plot()->xAxis->coordToPixel(view->state()->axis().xOfEvent(frame.columnEvent[best])),
                            timeline->plot()->yAxis->coordToPixel(double(low + (frame.otherTop[best] - low) / 2)));
        auto colorAt = [&] {
            timeline->plot()->replot();
            return timeline->plot()->toPixmap().toImage().pixelColor(pixel.toPoint());
        };
        const QColor plain = colorAt();
        QCOMPARE(plain.rgb(), foldedBandColor(false).rgb());
        timeline->setSearchText("cross_entropy");
        const QColor searching = colorAt();
        QVERIFY2(searching.lightnessF() > plain.lightnessF() + 0.1, qPrintable(QString("%1 -> %2").arg(plain.name(), searching.name())));
    }

    // The timeline's search outlines the drawn matches and Enter walks through all of them.
    void timelineSearch()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        TimelineView *timeline = view->timeline();
        const DeviceIndex &index = *doc->devices.at(0).index;
        // What does not match fades: the plot as a whole gets lighter (light theme).
        QVERIFY(applyTheme(*qApp, "light"));
        auto meanLightness = [&] {
            timeline->plot()->replot();
            const QImage image = timeline->plot()->toPixmap().toImage();
            double sum = 0;
            for (int y = 0; y < image.height(); y += 3)
                for (int x = 0; x < image.width(); x += 3)
                    sum += image.pixelColor(x, y).lightnessF();
            return sum / ((image.height() / 3 + 1) * (image.width() / 3 + 1));
        };
        const double plain = meanLightness();
        timeline->setSearchText("cross_entropy");
        QVERIFY2(meanLightness() > plain + 0.03, qPrintable(QString("%1 -> %2").arg(plain).arg(meanLightness())));
        timeline->plot()->replot();
        const AllocationSearch *search = timeline->bands()->search();
        QVERIFY(search);
        size_t expected = 0;
        for (const TimelineBand &band : timeline->bands()->lastFrame().bands)
            expected += !band.bottom.empty() && search->matches(band.allocation);
        QVERIFY(expected > 0);
        QCOMPARE(timeline->bands()->searchHits(), expected);
        QVERIFY(expected < timeline->bands()->lastFrame().bands.size());
        QTest::keyClick(timeline->searchField(), Qt::Key_Return);
        const AllocationId first = view->state()->selectedAllocation();
        QVERIFY(!first.isNone() && search->matches(first));
        QCOMPARE(view->state()->selectedEvent(), index.allocation(first).allocEvent);
        QTest::keyClick(timeline->searchField(), Qt::Key_Return);
        QVERIFY(view->state()->selectedAllocation() > first);
        timeline->setSearchText("no frame is called this");
        timeline->plot()->replot();
        QCOMPARE(timeline->bands()->searchHits(), size_t(0));
        timeline->setSearchText("");
        QVERIFY(!timeline->bands()->search());
    }

    void timelinePeak()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        TimelineView *timeline = view->timeline();
        timeline->plot()->replot();
        const DeviceSummary &s = doc->devices.at(0).summary;
        QVERIFY(timeline->peakReadout().contains(QString::fromStdString(formatBytes(s.peakActiveBytes))));
        QVERIFY(timeline->peakReadout().contains(QString("event %1").arg(s.peakIndex->index())));
        // The column under the peak marker shows the peak.
        AllocationBandsPlottable *bands = timeline->bands();
        const double x = bands->pixelOfEvent(*s.peakIndex);
        QVERIFY(x > timeline->plot()->axisRect()->left() && x < timeline->plot()->axisRect()->right());
        const TimelineFrame &frame = bands->lastFrame();
        const auto column = static_cast<size_t>((x - timeline->plot()->axisRect()->left()) * frame.total.size() /
                                                timeline->plot()->axisRect()->width());
        QCOMPARE(frame.total[column], s.peakActiveBytes);
        // The highest column of the whole frame is the peak too.
        QCOMPARE(*std::max_element(frame.total.begin(), frame.total.end()), s.peakActiveBytes);
    }

    void timelineZoomAndKeys()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        TimelineView *timeline = view->timeline();
        QCustomPlot *plot = timeline->plot();
        const QCPRange full = plot->xAxis->range();
        QVERIFY(full.lower <= 0.0 && full.upper >= doc->devices.at(0).index->eventCount() - 1);
        // Wheel forward zooms in around the cursor.
        const QPoint centre = plot->axisRect()->center();
        QWheelEvent wheel(centre, plot->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        QVERIFY(plot->xAxis->range().size() < full.size() * 0.95);
        // 0 fits, + halves, - doubles.
        timeline->setFocus();
        QTest::keyClick(plot, Qt::Key_0);
        QCOMPARE(plot->xAxis->range().size(), full.size());
        QTest::keyClick(plot, Qt::Key_Plus);
        QVERIFY(qAbs(plot->xAxis->range().size() - full.size() / 2) < 1e-6 * full.size());
        QTest::keyClick(plot, Qt::Key_Minus);
        QVERIFY(qAbs(plot->xAxis->range().size() - full.size()) < 1e-6 * full.size());
        // P jumps to the peak, arrows step the cursor, Home/End go to the ends.
        const uint32_t peak = doc->devices.at(0).summary.peakIndex->index();
        QTest::keyClick(plot, Qt::Key_P);
        QCOMPARE(view->state()->selectedEvent(), EventId(peak));
        QVERIFY(plot->xAxis->range().contains(peak));
        QVERIFY(plot->xAxis->range().size() < full.size());
        QTest::keyClick(plot, Qt::Key_Right);
        QCOMPARE(view->state()->selectedEvent(), EventId(peak + 1));
        QTest::keyClick(plot, Qt::Key_Left, Qt::ShiftModifier);
        QCOMPARE(view->state()->selectedEvent(), EventId(peak + 1 - 100));
        QTest::keyClick(plot, Qt::Key_End);
        QCOMPARE(view->state()->selectedEvent(), EventId(static_cast<uint32_t>(doc->devices.at(0).index->eventCount() - 1)));
        QTest::keyClick(plot, Qt::Key_Home);
        QCOMPARE(view->state()->selectedEvent(), EventId(0));
        // The visible range is shared state.
        QCOMPARE(view->state()->visibleRange().first, plot->xAxis->range().lower);
        QCOMPARE(view->state()->visibleRange().last, plot->xAxis->range().upper);
    }

    void oomKey()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Timeline, QSize(1200, 700));
        QTest::keyClick(view->timeline()->plot(), Qt::Key_O);
        QCOMPARE(view->state()->selectedEvent(), doc->devices.at(0).summary.ooms.at(0).event);
        // One OOM is "1 OOM" (it read "1 OOM(s)": tr's %n plural needs a translation to work).
        QVERIFY2(view->timeline()->peakReadout().contains(">1 OOM<"), qPrintable(view->timeline()->peakReadout()));
    }

    void hoverTooltip()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        TimelineView *timeline = view->timeline();
        const DeviceData &d = doc->devices.at(0);
        const EventId peak = *d.summary.peakIndex;
        timeline->revealEvent(peak);
        timeline->plot()->replot();
        // The largest allocation live at the peak, under the pointer at the peak column.
        const LiveBlockInfo &largest = d.summary.topLiveAtPeak.front();
        const TimelineFrame &frame = timeline->bands()->lastFrame();
        const double x = timeline->bands()->pixelOfEvent(peak);
        const auto column = static_cast<size_t>((x - timeline->plot()->axisRect()->left()) * frame.total.size() /
                                                timeline->plot()->axisRect()->width());
        const TimelineBand *band = nullptr;
        for (const TimelineBand &b : frame.bands) {
            if (b.allocation == largest.allocation)
                band = &b;
        }
        QVERIFY(band);
        QVERIFY(band->alive(column));
        const double yMid = timeline->plot()->yAxis->coordToPixel(static_cast<double>(band->bottomAt(column)) + largest.size / 2.0);
        const QString tip = timeline->tooltipAt(QPoint(static_cast<int>(x), static_cast<int>(yMid)));
        QVERIFY2(tip.contains(QString::fromStdString(formatBytes(largest.size))), qPrintable(tip));
        const auto frames = stackFrames(*doc->snapshot, largest.stack, true);
        const QString top = frames.empty() ? QString(largest.autogradThread ? "backward (autograd's thread, no stack)" : "no stack recorded")
                                           : QString::fromStdString(doc->snapshot->frameText(frames.front()));
        QVERIFY2(tip.contains(top), qPrintable(tip));
        // Coloured by category, the timeline says which colour is which; otherwise no legend.
        QVERIFY(!timeline->categoryLegend()->isVisibleTo(timeline));
        view->state()->setColorMode(ColorMode::Category);
        QVERIFY(timeline->categoryLegend()->isVisibleTo(timeline));
        for (int c = 0; c < kCategoryCount; ++c) {
            QVERIFY(timeline->categoryLegend()->text().contains(categoryColor(c).name()));
            QVERIFY(timeline->categoryLegend()->text().contains(QString::fromUtf8(categoryLabel(Category(c)))));
        }
        view->state()->setColorMode(ColorMode::Allocation);
        QVERIFY(!timeline->categoryLegend()->isVisibleTo(timeline));
        // It names the category the colouring by category shows.
        const QString category = QString::fromUtf8(categoryName(d.categories->of(largest.allocation))).replace('_', ' ');
        QVERIFY2(tip.contains("category: " + category), qPrintable(tip));
        // Clicking selects it in the shared state.
        QTest::mouseClick(timeline->plot(), Qt::LeftButton, Qt::NoModifier, QPoint(static_cast<int>(x), static_cast<int>(yMid)));
        QCOMPARE(view->state()->selectedAllocation(), largest.allocation);
    }

};

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
