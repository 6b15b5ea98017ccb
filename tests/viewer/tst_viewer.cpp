// The window and the views on real files (offscreen): summary, timeline readouts, markers,
// zoom/keys, tooltips, and a failed load next to a good document.
#include "CorpusFiles.h"
#include "SyntheticSnapshot.h"
#include "MainWindow.h"
#include "analysis/FrameFilter.h"
#include "decode/SnapshotLoader.h"
#include "notes/NoteSet.h"
#include "document/DocumentView.h"
#include "document/SessionBinding.h"
#include "state/ViewState.h"
#include "estimator/EstimatorPanel.h"
#include "export/ViewExport.h"
#include "model/ByteFormat.h"
#include "report/SummaryMarkdown.h"
#include "segments/EventListModel.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentTableModel.h"
#include "jobs/JobRunner.h"
#include "segments/SegmentsPage.h"
#include "segments/WhatIfPanel.h"
#include "stacks/CallTreeModel.h"
#include "compare/CompareDialog.h"
#include "ranks/RankOverviewPage.h"
#include "ranks/RankTableModel.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "steps/StepsView.h"
#include "style/BandColors.h"
#include "summary/FixList.h"
#include "summary/LiveAllocationModel.h"
#include "summary/LiveTensorsPage.h"
#include "summary/SummaryPage.h"
#include "timeline/AllocationBandsPlottable.h"
#include "timeline/TimelineView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <QFileInfo>
#include <thread>
#include <QElapsedTimer>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QWheelEvent>
#include <qcustomplot.h>

using namespace memlens;

namespace {

QString gpt2()
{
    return corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
}

std::shared_ptr<const Document> load(const QString &path)
{
    return loadDocument(path.toStdString(), StopAfter::Document).document;
}

// A shown DocumentView on `doc` (with its timeline built), on `page`, at `size`.
std::unique_ptr<DocumentView> openView(std::shared_ptr<const Document> doc, Page page, QSize size)
{
    auto view = std::make_unique<DocumentView>();
    view->setDocument({doc, buildTimelineLayouts(doc)});
    view->showPage(page);
    view->resize(size);
    view->show();
    return view;
}

} // namespace

class TestViewer : public QObject {
    Q_OBJECT

    // A generated 400-step run, made once for the tests that need one.
    QTemporaryDir generated_;
    std::shared_ptr<const Document> run400_;
    std::shared_ptr<const Document> run400()
    {
        if (!run400_) {
            const QString file = generated_.filePath("run400.pickle");
            QString error;
            runPythonTool("make_long_run.py", {corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst", file, "--steps", "400"}, &error);
            if (!error.isEmpty())
                qFatal("make_long_run.py: %s", qPrintable(error));
            run400_ = load(file);
        }
        return run400_;
    }

private slots:
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
        view->state()->setVisibleRange({double(step.firstEvent), double(step.lastEvent + 1)});
        const std::vector<int> zoomed = drawnColumns();
        // A line where each phase after the first starts (a shade would fill every column).
        QVERIFY2(zoomed.size() >= 3 && zoomed.size() <= 12, qPrintable(QString::number(zoomed.size())));
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
        const int y = static_cast<int>(plot->yAxis->coordToPixel(double(d.summary.steps[1].peakActiveBytes) / 2));
        const QPoint bar1(static_cast<int>(plot->xAxis->coordToPixel(1.0)), y);
        QCOMPARE(view->steps()->stepAt(bar1), 1);
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, bar1);
        QCOMPARE(view->currentPageKind(), Page::Timeline);
        QCOMPARE(view->state()->visibleFirstEvent(), d.summary.steps[1].firstEvent);
        QCOMPARE(view->state()->visibleLastEvent(), d.summary.steps[1].lastEvent);

        const uint32_t cursor = d.summary.steps[2].lastEvent;
        view->state()->setSelectedEvent(cursor);
        view->showPage(Page::Live);
        view->live()->setEarlierStepOnly(true);
        QTableView *table = view->live()->table();
        int leaks = 0;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const uint32_t id = table->model()->index(row, 0).data(LiveAllocationModel::AllocationRole).toUInt();
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

    // The Stacks page's "allocated in the visible range" follows a zoom made while it was
    // hidden (it used to ignore it and show the whole run).
    void stacksRangeChangedWhileHidden()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1400, 900));
        view->stacks()->setAllocatedInRange(true);
        const uint64_t whole = view->stacks()->tree()->root().bytes;
        view->state()->zoomTo({100, 401});
        QCOMPARE(view->state()->visibleFirstEvent(), 100u);
        QCOMPARE(view->state()->visibleLastEvent(), 400u);
        view->showPage(Page::Stacks);
        const EventTable &ev = doc->devices.at(0).index->events();
        uint64_t expected = 0;
        for (uint32_t e = 100; e <= 400; ++e)
            expected += ev.action[e] == Action::Alloc ? ev.size[e] : 0;
        QVERIFY(expected > 0 && expected < whole);
        QCOMPARE(view->stacks()->tree()->root().bytes, expected);
    }

    // The OOM is diagnosed once, with the summary: the Segments page shows that diagnosis
    // (here a doctored one), not one of its own.
    void segmentsShowTheSummarysOomDiagnosis()
    {
        const std::string path = (corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString();
        auto doc = std::make_shared<Document>();
        doc->path = path;
        auto snapshot = loadSnapshot(path);
        DeviceData d;
        d.index = std::make_unique<const DeviceIndex>(*snapshot, 0);
        d.categories = std::make_unique<const AllocationCategories>(*snapshot, *d.index);
        d.summary = summarizeDevice(*snapshot, *d.index, 10, d.categories.get());
        QCOMPARE(d.summary.ooms.size(), size_t(1));
        const uint32_t oom = d.summary.ooms[0].event;
        const uint64_t doctored = 4242ull << 20;
        QVERIFY(d.summary.ooms[0].reservedFree != doctored);
        d.summary.ooms[0].reservedFree = doctored;
        doc->snapshot = std::move(snapshot);
        doc->devices.emplace(0, std::move(d));
        auto view = openView(doc, Page::Segments, QSize(1400, 900));
        view->state()->setSelectedEvent(oom);
        QVERIFY2(view->segments()->verdictText().contains(QString::fromStdString(formatBytes(doctored))), qPrintable(view->segments()->verdictText()));
    }

    // The estimator measures the device the user selected, not the first one.
    void estimatorMeasuresTheSelectedDevice()
    {
        SynthSnapshot s;
        s.traces = {{{"segment_alloc", 0x100000, 2 << 20, 1}, {"alloc", 0x100000, 1 << 20, 2}},
                    {{"segment_alloc", 0x900000, 20 << 20, 1}, {"alloc", 0x900000, 12 << 20, 2}}};
        s.segments = {{0, 0x100000, 0, {{1 << 20, 1 << 20, "active_allocated"}, {1 << 20, 0, "inactive"}}},
                      {1, 0x900000, 0, {{12 << 20, 12 << 20, "active_allocated"}, {8 << 20, 0, "inactive"}}}};
        QTemporaryDir dir;
        const QString file = dir.filePath("two_devices.pickle");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        const std::string bytes = s.pickle();
        out.write(bytes.data(), qint64(bytes.size()));
        out.close();
        MainWindow window;
        DocumentView *view = window.openFile(file);
        QSignalSpy loaded(view, &DocumentView::loaded);
        QVERIFY(loaded.wait(30000));
        view->state()->setDevice(1);
        // The device selector follows a device chosen elsewhere (sessions, render --device).
        auto *selector = view->findChild<QComboBox *>();
        QVERIFY(selector);
        QCOMPARE(selector->currentData().toInt(), 1);
        QCOMPARE(selector->currentText(), QStringLiteral("cuda:1"));
        QAction *estimator = nullptr;
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->text() == "Memory &Estimator…")
                estimator = a;
        }
        QVERIFY(estimator);
        estimator->trigger();
        EstimatorPanel *panel = nullptr;
        for (QWidget *w : QApplication::topLevelWidgets()) {
            if (auto *p = qobject_cast<EstimatorPanel *>(w))
                panel = p;
        }
        QVERIFY(panel);
        QVERIFY2(panel->figuresText().contains(QString::fromStdString(formatBytes(12 << 20))), qPrintable(panel->figuresText()));
        panel->close();
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    void summaryPage()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Summary, QSize(1280, 800));
        const DeviceSummary &s = doc->devices.at(0).summary;
        const QString text = view->summaryPage()->factsText();
        QVERIFY2(text.contains(QString::fromStdString(formatBytes(s.peakActiveBytes))), qPrintable(text));
        QVERIFY(text.contains(QString::fromStdString(formatBytes(s.peakReservedBytes))));
        QTableView *table = view->summaryPage()->liveTable();
        QCOMPARE(table->model()->rowCount(), static_cast<int>(s.topLiveAtPeak.size()));
        // Sorted by size, largest first; row 0 is the model's largest live allocation.
        QCOMPARE(table->model()->index(0, LiveAllocationModel::Size).data(Qt::EditRole).toULongLong(),
                 static_cast<qulonglong>(s.topLiveAtPeak.front().size));
        // "What would help": the device's fixes in their order; activating one asks for the estimator.
        const Advice &advice = doc->devices.at(0).advice;
        FixList *fixes = view->summaryPage()->fixList();
        QCOMPARE(fixes->count(), static_cast<int>(advice.fixes.size()));
        QVERIFY(fixes->item(0)->text().startsWith(QString::fromStdString(advice.fixes.front().technique)));
        QSignalSpy asked(view->summaryPage(), &SummaryPage::showInEstimator);
        emit fixes->itemActivated(fixes->item(1));
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.front().front().toInt(), 1);
    }

    void liveAllocationModel()
    {
        auto doc = load(gpt2());
        LiveAllocationModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const DeviceSummary &s = doc->devices.at(0).summary;
        model.setAllocations(doc, 0, s.topLiveAtPeak, s.peakActiveBytes);
        QCOMPARE(model.rowCount(), static_cast<int>(s.topLiveAtPeak.size()));
        model.setAllocations(doc, 0, {}, 0);
        QCOMPARE(model.rowCount(), 0);
    }

    // The timeline's search outlines the drawn matches and Enter walks through all of them.
    void timelineSearch()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        TimelineView *timeline = view->timeline();
        const DeviceIndex &index = *doc->devices.at(0).index;
        timeline->setSearchText("cross_entropy");
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
        const uint32_t first = view->state()->selectedAllocation();
        QVERIFY(first != UINT32_MAX && search->matches(first));
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
        QVERIFY(timeline->peakReadout().contains(QString("event %1").arg(*s.peakIndex)));
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
        const uint32_t peak = *doc->devices.at(0).summary.peakIndex;
        QTest::keyClick(plot, Qt::Key_P);
        QCOMPARE(view->state()->selectedEvent(), peak);
        QVERIFY(plot->xAxis->range().contains(peak));
        QVERIFY(plot->xAxis->range().size() < full.size());
        QTest::keyClick(plot, Qt::Key_Right);
        QCOMPARE(view->state()->selectedEvent(), peak + 1);
        QTest::keyClick(plot, Qt::Key_Left, Qt::ShiftModifier);
        QCOMPARE(view->state()->selectedEvent(), peak + 1 - 100);
        QTest::keyClick(plot, Qt::Key_End);
        QCOMPARE(view->state()->selectedEvent(), static_cast<uint32_t>(doc->devices.at(0).index->eventCount() - 1));
        QTest::keyClick(plot, Qt::Key_Home);
        QCOMPARE(view->state()->selectedEvent(), 0u);
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
    }

    void hoverTooltip()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Timeline, QSize(1600, 900));
        TimelineView *timeline = view->timeline();
        const DeviceData &d = doc->devices.at(0);
        const uint32_t peak = *d.summary.peakIndex;
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
        const QString top = frames.empty() ? QString("no stack recorded") : QString::fromStdString(doc->snapshot->frameText(frames.front()));
        QVERIFY2(tip.contains(top), qPrintable(tip));
        // Clicking selects it in the shared state.
        QTest::mouseClick(timeline->plot(), Qt::LeftButton, Qt::NoModifier, QPoint(static_cast<int>(x), static_cast<int>(yMid)));
        QCOMPARE(view->state()->selectedAllocation(), largest.allocation);
    }

    // The Segments page's what-if: the corpus OOM replayed under its own setting fails at the
    // recorded OOM; with expandable segments it gets through (what `memlens replay` says); a
    // bad setting is a message, not a crash; a newer choice drops an older one's result.
    void segmentsWhatIfReplays()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Segments, QSize(1600, 1100));
        WhatIfPanel *panel = view->segments()->whatIf();
        QSignalSpy replayed(panel, &WhatIfPanel::replayed);
        panel->setConfig(QString());
        QVERIFY(replayed.wait(30000));
        const uint32_t oom = doc->devices.at(0).summary.ooms.at(0).event;
        QVERIFY2(panel->summaryText().contains(QString("Predicted OOM at event %1").arg(oom)), qPrintable(panel->summaryText()));
        // The timeline draws the same replay: its readout names it and the predicted OOM.
        QVERIFY2(view->timeline()->peakReadout().contains(QString("predicted OOM at event %1").arg(oom)), qPrintable(view->timeline()->peakReadout()));
        panel->setConfig("max_split_size_mb:128");
        panel->setConfig("expandable_segments:True");
        QVERIFY(replayed.wait(30000));
        QTest::qWait(200);
        QCOMPARE(replayed.size(), 2);
        QVERIFY2(panel->summaryText().contains("expandable_segments:True") && panel->summaryText().contains("No OOM"),
                 qPrintable(panel->summaryText()));
        QVERIFY(view->timeline()->peakReadout().contains("what if expandable_segments:True"));
        QVERIFY(!view->timeline()->peakReadout().contains("predicted OOM"));
        if (const QByteArray shot = qgetenv("MEMLENS_SHOT"); !shot.isEmpty()) {
            view->grab().save(QString::fromLocal8Bit(shot));
            view->showPage(Page::Timeline);
            view->timeline()->plot()->replot();
            view->grab().save(QString::fromLocal8Bit(shot).replace(".png", "-timeline.png"));
        }
        // Another document: the what-if is gone.
        view->state()->setDocument(load(gpt2()));
        QVERIFY(!view->state()->whatIf());
        QVERIFY(!view->timeline()->peakReadout().contains("what if"));
        panel->setConfig("max_split_size_mb:huge");
        QVERIFY2(panel->summaryText().contains("max_split_size_mb"), qPrintable(panel->summaryText()));
        QVERIFY(!panel->isReplaying());
    }

    // Hidden pages do not follow every cursor move: the Segments page recomputes once, when
    // it is shown, and then shows the cursor's event.
    void hiddenPagesCatchUpWhenShown()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Timeline, QSize(1200, 800));
        SegmentsPage *page = view->segments();
        QVERIFY(!page->isVisible());
        const uint32_t before = page->shownEvent();
        for (uint32_t e : {100u, 200u, 300u})
            view->state()->setSelectedEvent(e);
        QCOMPARE(page->shownEvent(), before);
        view->showPage(Page::Segments);
        QVERIFY(page->isVisible());
        QCOMPARE(page->shownEvent(), 300u);
        view->state()->setSelectedEvent(400);
        QCOMPARE(page->shownEvent(), 400u); // visible: at once
    }

    void segmentsPageFollowsCursor()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Segments, QSize(1600, 1000));
        SegmentsPage *page = view->segments();
        const DeviceData &d = doc->devices.at(0);
        // Default: the last event.
        QCOMPARE(page->shownEvent(), static_cast<uint32_t>(d.index->eventCount() - 1));
        // The shared cursor moves the map; at the OOM the verdict appears.
        const uint32_t oom = d.summary.ooms.at(0).event;
        view->state()->setSelectedEvent(oom);
        QCOMPARE(page->shownEvent(), oom);
        QCOMPARE(page->map()->state().event, oom);
        QVERIFY2(page->verdictText().contains("fragmentation"), qPrintable(page->verdictText()));
        QVERIFY(page->figuresText().contains("free in reserved 120 MiB"));
        // The list follows the cursor, and moving in the list moves the cursor.
        QCOMPARE(page->eventModel()->eventAt(page->eventList()->currentIndex().row()), oom);
        page->eventList()->setCurrentIndex(page->eventModel()->index(100, 0));
        QCOMPARE(view->state()->selectedEvent(), 100u);
        QCOMPARE(page->shownEvent(), 100u);
        // Clicking a block selects its allocation everywhere; hovering describes it.
        view->state()->setSelectedEvent(*d.summary.peakIndex);
        const LiveBlockInfo &largest = d.summary.topLiveAtPeak.front();
        const QRect r = page->map()->rectOfAllocation(largest.allocation);
        QVERIFY(!r.isEmpty());
        uint32_t under = UINT32_MAX;
        const QString text = page->map()->describeAt(r.center(), &under);
        QCOMPARE(under, largest.allocation);
        QVERIFY2(text.contains(QString::fromStdString(formatBytes(largest.size))), qPrintable(text));
        QVERIFY(text.contains("Segment 0x"));
        QTest::mouseClick(page->map(), Qt::LeftButton, Qt::NoModifier, r.center());
        QCOMPARE(view->state()->selectedAllocation(), largest.allocation);
        // Colour per category on the timeline's menu colours the map's blocks by category too.
        view->state()->setSelectedAllocation(UINT32_MAX);
        const QPoint inside(r.left() + 2, r.center().y());
        QCOMPARE(page->map()->grab().toImage().pixel(inside), bandColor(largest.allocation).rgb());
        QComboBox *timelineColors = nullptr;
        for (QComboBox *c : view->timeline()->findChildren<QComboBox *>()) {
            if (c->count() == 3)
                timelineColors = c;
        }
        QVERIFY(timelineColors);
        timelineColors->setCurrentIndex(2);
        QCOMPARE(view->state()->colorMode(), ColorMode::Category);
        const QColor expected = categoryColor(static_cast<int>(d.categories->of(largest.allocation)));
        QCOMPARE(page->map()->grab().toImage().pixel(inside), expected.rgb());
        // Ctrl+wheel halves the bytes per row, and the scale menu shows the new scale.
        QComboBox *scale = nullptr;
        for (QComboBox *c : page->findChildren<QComboBox *>()) {
            if (c->currentData().isValid() && c->currentData().toULongLong() == page->map()->bytesPerRow())
                scale = c;
        }
        QVERIFY(scale);
        const uint64_t before = page->map()->bytesPerRow();
        QWheelEvent wheel(QPointF(50, 50), page->map()->mapToGlobal(QPointF(50, 50)), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(page->map(), &wheel);
        QCOMPARE(page->map()->bytesPerRow(), before / 2);
        QCOMPARE(scale->currentData().toULongLong(), before / 2);
    }

    void eventListFilter()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        EventListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDevice(doc, 0);
        QCOMPARE(model.rowCount(), static_cast<int>(doc->devices.at(0).index->eventCount()));
        model.setFilter(Action::Oom, std::nullopt);
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(model.index(0, EventListModel::Detail).data().toString().startsWith("requested 12.0 MiB"));
        const EventTable &ev = doc->devices.at(0).index->events();
        model.setFilter(std::nullopt, ev.addr[1]);
        int expected = 0;
        for (size_t e = 0; e < ev.count(); ++e)
            expected += ev.addr[e] == ev.addr[1] && ev.action[e] != Action::Oom;
        QCOMPARE(model.rowCount(), expected);
        // Event 1's row: the matching events before it (the segment_alloc at the same address).
        int before = 0;
        for (size_t e = 0; e < 1; ++e)
            before += ev.addr[e] == ev.addr[1];
        QCOMPARE(model.rowForEvent(1), before);
        QCOMPARE(model.eventAt(before), 1u);
        model.setFilter(std::nullopt, std::nullopt);
        QCOMPARE(model.rowForEvent(42), 42);
    }

    void segmentTableModel()
    {
        auto doc = load(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle");
        SegmentTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const DeviceData &d = doc->devices.at(0);
        const AllocatorState st = allocatorStateAt(*doc->snapshot, *d.index, static_cast<uint32_t>(d.index->eventCount() - 1));
        model.setState(st);
        QCOMPARE(model.rowCount(), static_cast<int>(st.segments.size()));
        qulonglong total = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            total += model.index(r, SegmentTableModel::Size).data(Qt::EditRole).toULongLong();
        QCOMPARE(total, static_cast<qulonglong>(st.reserved));
    }

    void estimatorPanel()
    {
        EstimatorPanel panel;
        panel.resize(1100, 600);
        panel.show();
        EstimateInput in;
        in.model = *findModel("tinyllama-1.1b");
        in.precision = Precision::Bf16;
        in.batch = 4;
        in.seq = 2048;
        panel.setInput(in);
        QCOMPARE(panel.result().peakAllocatedBytes, estimate(in).peakAllocatedBytes);
        QVERIFY(panel.figuresText().contains(QString::fromStdString(formatBytes(estimate(in).peakAllocatedBytes))));
        // Clicking a saving applies it.
        QListWidget *savings = panel.savingsList();
        QListWidgetItem *ckpt = nullptr;
        for (int i = 0; i < savings->count(); ++i) {
            if (savings->item(i)->data(Qt::UserRole).toString() == "checkpointing")
                ckpt = savings->item(i);
        }
        QVERIFY(ckpt);
        const uint64_t before = panel.result().peakAllocatedBytes;
        emit savings->itemClicked(ckpt);
        QCOMPARE(panel.input().checkpointing, Checkpointing::Full);
        QVERIFY(panel.result().peakAllocatedBytes < before);
        panel.setMeasuredPeak(14'706'522'112ull, "run.pickle");
        QVERIFY(panel.figuresText().contains("Measured in run.pickle"));
        // A snapshot of GPT-2 small, fp32, AdamW, 8 × 512 tokens prefills that setup and says so.
        auto doc = load(gpt2());
        EstimateInput other = panel.input();
        other.precision = Precision::Bf16;
        other.optimizer = Optimizer::Sgd;
        panel.setInput(other);
        panel.setMeasurement(doc->devices.at(0).summary, "snapshot.pickle");
        panel.setInferred(doc->devices.at(0).advice.setup);
        QCOMPARE(panel.input().model.name, std::string("gpt2-small"));
        QCOMPARE(panel.input().optimizer, Optimizer::AdamW);
        QCOMPARE(panel.input().precision, Precision::Fp32);
        QCOMPARE(panel.input().batch * panel.input().seq, 8 * 512);
        QVERIFY2(panel.inferredText().contains("Inferred from the snapshot"), qPrintable(panel.inferredText()));
        QVERIFY(panel.figuresText().contains("At its peak: parameters 475 MiB"));
        // A fix from the summary's list shows applied, with its measured saving.
        const Advice &advice = doc->devices.at(0).advice;
        const auto ckptFix = std::find_if(advice.fixes.begin(), advice.fixes.end(), [](const Fix &f) { return f.technique == "checkpointing"; });
        QVERIFY(ckptFix != advice.fixes.end());
        panel.showFix(*ckptFix);
        QCOMPARE(panel.input().checkpointing, Checkpointing::Full);
        QVERIFY(panel.inferredText().contains("saves"));
    }

    void stacksPage()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Stacks, QSize(1400, 900));
        StacksPage *page = view->stacks();
        QVERIFY(page->tree());
        QCOMPARE(page->tree()->root().bytes, doc->devices.at(0).summary.peakActiveBytes);
        auto *model = qobject_cast<CallTreeModel *>(page->treeView()->model());
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(model->rowCount() > 0);
        // Bottom-up, the top sites include the loss.
        CallTreeOptions options = page->options();
        options.bottomUp = true;
        page->setOptions(options);
        QString top;
        for (int r = 0; r < std::min(5, model->rowCount()); ++r)
            top += model->index(r, 0).data().toString() + "\n";
        QVERIFY2(top.contains("cross_entropy"), qPrintable(top));
        // The trees say which category each frame's bytes mostly are.
        bool categorised = false;
        for (int r = 0; r < model->rowCount(); ++r)
            categorised = categorised || model->index(r, CallTreeModel::Mostly).data().toString().startsWith("activation");
        QVERIFY(categorised);
        // Grouped by compiled region: the corpus run is not compiled, so one group holds it all.
        options.grouping = StackGrouping::CompiledRegion;
        page->setOptions(options);
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->index(0, 0).data().toString(), QStringLiteral("(not compiled)"));
        QCOMPARE(page->tree()->node(page->tree()->root().children.front()).bytes, page->tree()->root().bytes);
        options.grouping = StackGrouping::None;
        page->setOptions(options);
        // Clicking a frame in the flame graph zooms into it and selects it in the tree.
        FlameGraphWidget *flame = page->flameGraph();
        flame->repaint();
        const uint32_t first = page->tree()->root().children.front();
        QPoint where;
        for (int y = 0; y < flame->height() && where.isNull(); y += 3)
            for (int x = 0; x < flame->width() && where.isNull(); x += 5)
                if (flame->nodeAt(QPoint(x, y)) == first)
                    where = QPoint(x, y);
        QVERIFY(!where.isNull());
        QTest::mouseClick(flame, Qt::LeftButton, Qt::NoModifier, where);
        QCOMPARE(flame->zoomedNode(), first);
        QCOMPARE(page->treeView()->currentIndex().data(CallTreeModel::NodeRole).toUInt(), first);
        // Allocated in a range: what the visible events allocated.
        view->state()->setVisibleRange({0, 999.5});
        QCOMPARE(view->state()->visibleLastEvent(), 999u);
        page->setAllocatedInRange(true);
        uint64_t expected = 0;
        const EventTable &ev = doc->devices.at(0).index->events();
        for (uint32_t e = 0; e < 1000; ++e)
            expected += ev.action[e] == Action::Alloc ? ev.size[e] : 0;
        QCOMPARE(page->tree()->root().bytes, expected);
        page->setAllocatedInRange(false);
        // Export writes folded stacks atomically.
        QTemporaryDir dir;
        QVERIFY(page->exportFolded(dir.filePath("peak.folded")).isEmpty());
        QFile f(dir.filePath("peak.folded"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("cross_entropy"));
    }

    void liveTensorsPage()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Live, QSize(1400, 900));
        LiveTensorsPage *page = view->live();
        const DeviceSummary &s = doc->devices.at(0).summary;
        QCOMPARE(page->table()->model()->rowCount(), static_cast<int>(s.liveBlocksAtPeak));
        QVERIFY2(page->totalsText().contains(QString::fromStdString(formatBytes(s.peakActiveBytes))), qPrintable(page->totalsText()));
        // Filters: frame text and a size range; totals follow what is shown.
        page->setFilter("cross_entropy", 0, 0);
        QVERIFY(page->table()->model()->rowCount() >= 1);
        for (int r = 0; r < page->table()->model()->rowCount(); ++r)
            QVERIFY(page->table()->model()->index(r, LiveAllocationModel::Size).data(Qt::EditRole).toULongLong() > 0);
        page->setFilter(QString(), 700ull << 20, 0);
        QCOMPARE(page->table()->model()->rowCount(), 3); // the three logits-sized tensors
        QVERIFY(page->totalsText().contains("3 allocations"));
        // Selecting a row selects the allocation everywhere.
        page->table()->setCurrentIndex(page->table()->model()->index(0, 0));
        QCOMPARE(view->state()->selectedAllocation(), page->table()->model()->index(0, 0).data(LiveAllocationModel::AllocationRole).toUInt());
        // CSV export: a header and one line per live allocation.
        QTemporaryDir dir;
        QVERIFY(page->exportCsv(dir.filePath("live.csv")).isEmpty());
        QFile f(dir.filePath("live.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), static_cast<qsizetype>(s.liveBlocksAtPeak + 1));
        // Moving the cursor updates the table.
        view->state()->setSelectedEvent(100);
        page->setFilter(QString(), 0, 0);
        QCOMPARE(page->table()->model()->rowCount(), static_cast<int>(doc->devices.at(0).index->liveAt(100).size()));
    }

    // A folder of ranks: the overview summarises them in the background, marks the OOM rank,
    // passes the model tester, and double-clicking a row asks to open that rank's file.
    void rankOverview()
    {
        QTemporaryDir dir;
        const QString gpt2 = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        QVERIFY(QDir().mkpath(dir.filePath("step_000000000005")));
        for (int r = 0; r < 4; ++r)
            QVERIFY(QFile::link(r == 2 ? oom : gpt2, dir.filePath(QString("step_000000000005/%1_step_5.pickle").arg(r, 6, 10, QChar('0')))));
        RankOverviewPage page(nullptr);
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.openFolder(dir.path());
        page.resize(1200, 800);
        page.show();
        QTRY_VERIFY_WITH_TIMEOUT(!page.isSummarizing(), 30000);
        QCOMPARE(page.model()->rowCount(), 4);
        QCOMPARE(page.model()->comparison().oomRanks, std::vector<size_t>{2});
        QVERIFY(page.headline().contains("1 with an OOM"));
        QVERIFY(page.headline().contains("at step 5"));
        QCOMPARE(page.model()->data(page.model()->index(2, RankTableModel::Ooms), Qt::DisplayRole).toULongLong(), 1ull);
        QSignalSpy open(&page, &RankOverviewPage::openRankRequested);
        const QModelIndex row = page.table()->model()->index(2, 0);
        emit page.table()->doubleClicked(row);
        QCOMPARE(open.size(), 1);
        QVERIFY(open.at(0).at(0).toString().endsWith("000002_step_5.pickle"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, page.openFolder(dir.filePath("nothing-here")));
        QCOMPARE(page.model()->rowCount(), 4); // a failed open leaves the page as it was
    }

    void compareMode()
    {
        auto a = load(gpt2());
        CompareDialog self(a, 0);
        self.setOther(a);
        QCOMPARE(self.table()->rowCount(), 0);
        QVERIFY(self.totalsText().contains("0 call sites differ"));
        CompareDialog other(a, 0);
        other.compareWith(corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst");
        QTRY_VERIFY_WITH_TIMEOUT(other.table()->rowCount() > 0, 30000);
        QVERIFY(other.table()->item(0, 3)->text().startsWith("+"));
    }

    void exportWithFooter()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Timeline, QSize(1200, 700));
        view->state()->setSelectedEvent(doc->devices.at(0).summary.ooms.at(0).event);
        const ExportFooter footer = view->exportFooter("9.9");
        QVERIFY(footer.text().contains("oom_snapshot.pickle"));
        QVERIFY(footer.text().contains("cuda:0"));
        QVERIFY(footer.text().contains("event 6075"));
        QVERIFY(footer.text().contains("memlens 9.9"));
        QWidget *page = view->currentPage();
        for (qreal scale : {1.0, 2.0}) {
            const QImage image = exportImage(page, footer, scale);
            QCOMPARE(image.size(), QSize(page->width(), page->height() + kFooterHeight) * scale);
        }
        QTemporaryDir dir;
        QVERIFY(savePng(exportImage(page, footer, 2.0), dir.filePath("t.png")).isEmpty());
        QCOMPARE(QImage(dir.filePath("t.png")).size(), QSize(page->width(), page->height() + kFooterHeight) * 2);
        QVERIFY(exportSvg(page, footer, dir.filePath("t.svg")).isEmpty());
        bool ok = false;
        const QString text = svgText(dir.filePath("t.svg"), &ok);
        QVERIFY(ok);
        QVERIFY2(text.contains("memlens 9.9"), qPrintable(text.right(200)));
        // The Markdown summary carries the key figures.
        const QString md = QString::fromStdString(summaryMarkdown(*doc->snapshot, doc->devices.at(0).summary, doc->fileName()));
        QVERIFY(md.contains("**fragmentation**"));
        QVERIFY(md.contains(QString::fromStdString(formatBytes(doc->devices.at(0).summary.peakActiveBytes))));
        QVERIFY(md.contains("| size | category | allocated at |"));
    }

    // A view captured into a session and restored shows the same thing.
    void sessionRestoresView()
    {
        auto doc = load(gpt2());
        auto first = openView(doc, Page::Timeline, QSize(1400, 800));
        first->timeline()->revealEvent(4403);
        first->state()->setSelectedAllocation(5);
        first->showPage(Page::Stacks);
        QTemporaryDir dir;
        const std::string path = dir.filePath("v.memlens").toStdString();
        saveSession(path, captureSession(*first), true);
        const Session session = loadSession(path);
        QCOMPARE(session.page, std::string("stacks"));
        auto second = openView(doc, Page::Summary, QSize(1400, 800));
        applySession(*second, session);
        QCOMPARE(second->currentPageKind(), Page::Stacks);
        QCOMPARE(second->state()->selectedEvent(), 4403u);
        QCOMPARE(second->state()->selectedAllocation(), 5u);
        QCOMPARE(second->timeline()->plot()->xAxis->range().lower, first->timeline()->plot()->xAxis->range().lower);
        QCOMPARE(second->timeline()->plot()->xAxis->range().upper, first->timeline()->plot()->xAxis->range().upper);
    }

    // Undo / Redo act on the current document's notes and say what they will undo.
    void undoFollowsTheCurrentDocument()
    {
        MainWindow window;
        window.show();
        DocumentView *a = window.openFile(gpt2());
        QSignalSpy loadedA(a, &DocumentView::loaded);
        QVERIFY(loadedA.wait(30000));
        DocumentView *b = window.openFile(gpt2());
        QSignalSpy loadedB(b, &DocumentView::loaded);
        QVERIFY(loadedB.wait(30000));
        QAction *undo = nullptr;
        for (QAction *action : window.findChildren<QAction *>()) {
            if (action->shortcut() == QKeySequence(QKeySequence::Undo))
                undo = action;
        }
        QVERIFY(undo);
        QVERIFY(!undo->isEnabled());
        window.tabs()->setCurrentWidget(a);
        a->addPeakNote();
        QVERIFY(undo->isEnabled());
        QCOMPARE(undo->text(), QString("&Undo Add note"));
        QVERIFY(window.tabs()->tabText(window.tabs()->indexOf(a)).endsWith(" •")); // unsaved
        window.tabs()->setCurrentWidget(b);
        QVERIFY(!undo->isEnabled());
        window.tabs()->setCurrentWidget(a);
        undo->trigger();
        QCOMPARE(a->notes()->items().size(), 0);
        QVERIFY(!window.tabs()->tabText(window.tabs()->indexOf(a)).endsWith(" •"));
        // Ctrl+S writes to the document's session file and marks the notes saved.
        a->addPeakNote();
        QTemporaryDir dir;
        const QString path = dir.filePath("a.memlens");
        a->setSessionPath(path);
        QAction *save = nullptr;
        for (QAction *action : window.findChildren<QAction *>()) {
            if (action->shortcut() == QKeySequence(QKeySequence::Save))
                save = action;
        }
        QVERIFY(save);
        save->trigger();
        QVERIFY(a->notes()->undoStack()->isClean());
        QVERIFY(!window.tabs()->tabText(window.tabs()->indexOf(a)).endsWith(" •"));
        QCOMPARE(loadSession(path.toStdString()).notes.size(), size_t(1));
    }

    void failedLoadLeavesOthers()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath("corrupt.pickle");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("\x80\x04}\x94(\x8c\x08segments", 15));
        f.close();
        MainWindow window;
        window.show();
        DocumentView *good = window.openFile(gpt2());
        QSignalSpy loaded(good, &DocumentView::loaded);
        QVERIFY(loaded.wait(30000));
        DocumentView *broken = window.openFile(bad);
        QSignalSpy failed(broken, &DocumentView::loadFailed);
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().first().toString().startsWith(bad + ": byte "));
        QTRY_COMPARE(window.tabs()->count(), 1);
        auto *box = window.findChild<QMessageBox *>("loadError");
        QVERIFY(box);
        QVERIFY(box->text().contains("corrupt.pickle"));
        QCOMPARE(window.tabs()->widget(0), good);
        QVERIFY(good->document());
        QCOMPARE(good->document()->devices.at(0).summary.peakActiveBytes,
                 load(gpt2())->devices.at(0).summary.peakActiveBytes);
    }

    // The summary appears as soon as the indices exist; the timeline follows when its own
    // index is built.
    void stagedLoad()
    {
        DocumentView view;
        QSignalSpy status(&view, &DocumentView::statusChanged);
        QSignalSpy loaded(&view, &DocumentView::loaded);
        view.load(gpt2());
        QVERIFY(loaded.wait(30000));
        QVERIFY(status.count() >= 2);
        QVERIFY2(status.first().first().toString().contains("preparing the timeline"), qPrintable(status.first().first().toString()));
        QVERIFY(!status.last().first().toString().contains("preparing"));
        QVERIFY(view.state()->deviceLayout());
    }

    // Cancelling must stop the load: a 400,000-entry file (made here, so no cache entry) takes
    // far longer to decode than the cancel takes to arrive, so without it `loaded` would come.
    void cancelLoad()
    {
        QTemporaryDir dir;
        const QString big = dir.filePath("big.pickle");
        QString error;
        runPythonTool("make_large_snapshot.py", {gpt2(), big, "--entries", "400000"}, &error);
        QVERIFY2(QFileInfo::exists(big), qPrintable(error));
        MainWindow window;
        DocumentView *view = window.openFile(big);
        QSignalSpy cancelled(view, &DocumentView::loadCancelled);
        QSignalSpy loaded(view, &DocumentView::loaded);
        view->cancelLoad();
        QVERIFY(cancelled.wait(30000));
        QTest::qWait(100);
        QCOMPARE(loaded.count(), 0);
        QTRY_COMPARE(window.tabs()->count(), 0);
    }

    // The job helper every background task uses: a cancel reaches the running job (which
    // would otherwise run 10 s and say so) and its last word still arrives; a newer job drops
    // what an older one posts; after finish() nothing of that job arrives.
    void jobRunnerCancelsAndDropsStaleResults()
    {
        QObject owner;
        QStringList got;
        {
            JobRunner jobs(&owner);
            auto waitForCancel = [&got](const QString &name) {
                return [&got, name](const Job &job) {
                    QElapsedTimer t;
                    t.start();
                    while (!job.cancelled() && t.elapsed() < 10000)
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    job.post([&got, name, stopped = job.cancelled()] { got << name + (stopped ? " stopped" : " ran out"); });
                };
            };
            jobs.start(waitForCancel("a"));
            jobs.cancel();
            QTRY_COMPARE(got, QStringList{"a stopped"});
            jobs.start(waitForCancel("b"));
            jobs.start([&got](const Job &job) { job.post([&got] { got << "c"; }); });
            QTRY_COMPARE(got, (QStringList{"a stopped", "c"}));
            QTest::qWait(50);
            QCOMPARE(got, (QStringList{"a stopped", "c"})); // b's word was dropped
            jobs.start([&got](const Job &job) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                job.post([&got] { got << "d"; });
            });
            jobs.finish();
            QTest::qWait(200);
            QCOMPARE(got.size(), 2);
        }
    }
};

QTEST_MAIN(TestViewer)
#include "tst_viewer.moc"
