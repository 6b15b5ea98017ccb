// The viewer's segments/: the allocator state at the cursor, its event list and table, the OOM verdict,
// the what-if replay, and the rule for hidden pages.
#include "ViewerTestSupport.h"
#include "questions/QuestionError.h"
#include "questions/ReplayQuestion.h"
#include "replay/ReplayReport.h"
#include "replay/ReplayVerdict.h"

using namespace memlens;

class TestSegments : public QObject {
    Q_OBJECT

private slots:
    // The event list has room for the last event's number and for a size, not only for what its
    // first rows hold (event numbers of five digits were cut to "1…").
    void eventListColumnsFitTheLastRows()
    {
        // 300,000 entries: six-digit event numbers, wider than the header and the first rows.
        SynthSnapshot s;
        std::vector<SynthEntry> trace{{"segment_alloc", 0x100000, 2 << 20, 1}};
        for (int i = 0; i < 149999; ++i) {
            trace.push_back({"alloc", 0x100000, uint64_t(1 + i % 1000) << 10, 2 + 2 * i});
            trace.push_back({"free_completed", 0x100000, uint64_t(1 + i % 1000) << 10, 3 + 2 * i});
        }
        s.traces = {trace};
        s.segments = {{0, 0x100000, 0, {{2 << 20, 0, "inactive"}}}};
        QTemporaryDir dir;
        QFile out(dir.filePath("long.pickle"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        const std::string bytes = s.pickle();
        out.write(bytes.data(), qint64(bytes.size()));
        out.close();
        auto doc = load(out.fileName());
        auto view = openView(doc, Page::Segments, QSize(1400, 900));
        QTableView *events = view->segments()->eventList();
        const int rows = events->model()->rowCount();
        QVERIFY(rows >= 299999);
        const QFontMetrics fm(events->font());
        const QString last = events->model()->index(rows - 1, EventListModel::Index).data().toString();
        QVERIFY(events->columnWidth(EventListModel::Index) > fm.horizontalAdvance(last));
        for (int r = 0; r < rows; r += 997) {
            const QString size = events->model()->index(r, EventListModel::Size).data().toString();
            QVERIFY2(events->columnWidth(EventListModel::Size) > fm.horizontalAdvance(size), qPrintable(size));
        }
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
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
        const EventId oom = d.summary.ooms[0].event;
        const uint64_t doctored = 4242ull << 20;
        QVERIFY(d.summary.ooms[0].reservedFree != doctored);
        d.summary.ooms[0].reservedFree = doctored;
        doc->snapshot = std::move(snapshot);
        doc->devices.emplace(0, std::move(d));
        auto view = openView(doc, Page::Segments, QSize(1400, 900));
        view->state()->setSelectedEvent(oom);
        QVERIFY2(view->segments()->verdictText().contains(QString::fromStdString(formatBytes(doctored))), qPrintable(view->segments()->verdictText()));
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
        const uint32_t oom = doc->devices.at(0).summary.ooms.at(0).event.index();
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

    // The What-if asks the question `memlens replay` and MCP's replay ask (questions/ReplayQuestion):
    // the prediction the command line prints for the same setting, and the same refusal of a
    // fraction of a device whose size it is not told (the window replayed it, "not applied").
    void whatIfAsksTheReplayQuestion()
    {
        const QString file = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        auto doc = load(file);
        auto view = openView(doc, Page::Segments, QSize(1600, 1100));
        WhatIfPanel *panel = view->segments()->whatIf();
        QSignalSpy replayed(panel, &WhatIfPanel::replayed);
        panel->setConfig("expandable_segments:True");
        QVERIFY(replayed.wait(30000));
        ReplayRequest request;
        request.allocConf = "expandable_segments:True";
        const ReplayAnswer asked = answerReplay(file.toStdString(), *doc->snapshot, request);
        QCOMPARE(view->state()->whatIf()->predicted.peakReservedBytes, asked.result.predicted.peakReservedBytes);
        QCOMPARE(view->state()->whatIf()->predicted.oomAt, asked.result.predicted.oomAt);
        QCOMPARE(view->state()->whatIf()->predictedReserved, asked.result.predictedReserved);
        // One wording of the answer: the panel says what `memlens replay` says, and the fix list's
        // margin for the same setting is the same words (the panel said "No OOM within 5.99 GiB").
        const QString verdict = QString::fromStdString(replayVerdict(asked.result));
        QVERIFY2(verdict.contains("to spare") && verdict.contains("within the error of what priced it"), qPrintable(verdict));
        QVERIFY2(panel->summaryText().contains(verdict.mid(1).toHtmlEscaped()), qPrintable(panel->summaryText()));
        QVERIFY(QString::fromStdString(replayText(file.toStdString(), asked.result)).contains(verdict));
        const Advice &advice = doc->devices.at(0).advice;
        const auto fix = std::find_if(advice.fixes.begin(), advice.fixes.end(), [](const Fix &f) { return f.technique == "expandable_segments"; });
        QVERIFY(fix != advice.fixes.end());
        QVERIFY2(verdict.contains(QString::fromStdString(marginText(*fix, *advice.capacity))), qPrintable(verdict));

        request.allocConf = "per_process_memory_fraction:0.5";
        QString refusal;
        try {
            admitReplayRequest(request);
        } catch (const QuestionError &e) {
            refusal = QString::fromStdString(e.what());
        }
        QVERIFY(refusal.contains("per_process_memory_fraction is a share of the device"));
        panel->setConfig("per_process_memory_fraction:0.5");
        QTest::qWait(200);
        QCOMPARE(replayed.size(), 1);
        QVERIFY(!panel->isReplaying());
        QVERIFY2(panel->summaryText().contains(refusal.toHtmlEscaped()), qPrintable(panel->summaryText()));
    }

    // The What-if chart in a 1024 × 700 window: tall enough to read (it was about 110 px, its x
    // title cut), its legend clear of the predicted OOM at the end of the run, and its lines
    // inside the axis range, so an SVG export needs no clipping.
    // Segments over time (memory_viz's Active Cached Segment Timeline): the bands are the
    // layout of the visible events; a click moves the shared cursor and the Segments page's map
    // follows; a double-click opens that page; a what-if replay draws its reserved bytes beside.
    void segmentsOverTime()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Segments, QSize(1400, 900));
        WhatIfPanel *panel = view->segments()->whatIf();
        QSignalSpy replayed(panel, &WhatIfPanel::replayed);
        panel->setConfig("expandable_segments:True");
        QVERIFY(replayed.wait(30000));
        view->showPage(Page::SegmentTimeline);
        SegmentTimelineView *page = view->segmentTimeline();
        QTRY_VERIFY(!page->bands()->frame().bands.empty());
        const DeviceData &d = doc->devices.at(0);
        const auto n = static_cast<uint32_t>(d.index->eventCount());
        const SegmentTimelineFrame &frame = page->bands()->frame();
        const SegmentTimelineFrame want = layoutSegmentTimeline(*d.index, EventId(0), EventId(n - 1), static_cast<int>(frame.columnLast.size()),
                                                                SegmentOrder::Address);
        QCOMPARE(frame.bands.size(), want.bands.size());
        QCOMPARE(frame.stacked, want.stacked);
        QVERIFY2(page->titleText().contains(QString("%1 segment lives").arg(want.bands.size())), qPrintable(page->titleText()));
        // The tallest column is as tall as the most reserved at once, or taller when segments came
        // and went inside it.
        QVERIFY(*std::max_element(frame.stacked.begin(), frame.stacked.end()) >= d.index->peakReservedBytes());
        page->setOrder(SegmentOrder::Size);
        QTRY_VERIFY(page->bands()->frame().bands.front().size >= page->bands()->frame().bands.back().size);
        // Click the middle of the largest band at the middle of its life.
        const SegmentBand &band = page->bands()->frame().bands.front();
        const size_t column = band.firstColumn + band.bottom.size() / 2;
        QCustomPlot *plot = page->plot();
        const double x = (double(frame.columnLast[column].index()) + 0.5);
        const QPoint pixel(int(plot->xAxis->coordToPixel(x)), int(plot->yAxis->coordToPixel(double(band.bottom[column - band.firstColumn] + band.size / 2))));
        QVERIFY2(page->describeAt(pixel).startsWith("Segment 0x"), qPrintable(page->describeAt(pixel)));
        QTest::mouseClick(plot, Qt::LeftButton, {}, pixel);
        QVERIFY(view->state()->selectedEvent().has_value());
        const EventId clicked = *view->state()->selectedEvent();
        // Within a column's width (a pixel) of the column clicked.
        const double perColumn = double(n) / double(frame.columnLast.size());
        QVERIFY(std::abs(double(clicked.index()) - double(frame.columnLast[column].index())) <= 2 * perColumn + 2);
        QTest::mouseDClick(plot, Qt::LeftButton, {}, pixel);
        QTRY_COMPARE(view->currentPageKind(), Page::Segments);
        QCOMPARE(view->segments()->shownPoint(), std::optional(TracePoint::after(*view->state()->selectedEvent())));
        // The what-if's reserved bytes, as the replay predicted them.
        view->showPage(Page::SegmentTimeline);
        QCPGraph *predicted = plot->graph(0);
        QVERIFY(predicted->visible() && predicted->data()->size() == int(view->state()->whatIf()->predictedReserved.size()) + 2);
        QCOMPARE(predicted->data()->at(predicted->data()->size() - 1)->value, double(view->state()->whatIf()->predictedReserved.back().second));
        saveShot(view.get(), "segments-over-time");
        // The replay's own segments instead of the recorded ones: as many bands as it reserved
        // segments in the window, and the last column as tall as it predicts reserved at the end.
        page->setShowsPredicted(true);
        QTRY_VERIFY(page->showsPredicted() && page->titleText().contains("expandable_segments:True"));
        const SegmentTimelineFrame &bands = page->bands()->frame();
        QCOMPARE(bands.bands.size(), view->state()->whatIf()->predictedSegments.size());
        uint64_t atEnd = 0;
        for (const SegmentBand &b : bands.bands)
            if (b.endColumn() == bands.columnLast.size() && view->state()->whatIf()->predictedSegments[b.life.index()].released == kNever)
                atEnd += b.size;
        QCOMPARE(atEnd, view->state()->whatIf()->predicted.reservedAtEndBytes);
        saveShot(view.get(), "segments-over-time-predicted");
    }

    void whatIfChartReadsAtLaptopSize()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Segments, QSize(1024, 700));
        WhatIfPanel *panel = view->segments()->whatIf();
        QSignalSpy replayed(panel, &WhatIfPanel::replayed);
        panel->setConfig(QString());
        QVERIFY(replayed.wait(30000));
        auto *plot = panel->findChild<QCustomPlot *>();
        QVERIFY(plot);
        plot->replot();
        QVERIFY2(plot->height() >= 190, qPrintable(QString::number(plot->height())));
        // All of it shown, its x axis title included: nothing above it clips it.
        QTest::qWait(50);
        const QRect shown = plot->visibleRegion().boundingRect();
        QVERIFY2(shown.height() == plot->height(), qPrintable(QString("%1 of the chart's %2 px shown").arg(shown.height()).arg(plot->height())));
        const double oomX = plot->xAxis->coordToPixel(double(doc->devices.at(0).summary.ooms.at(0).event.index()));
        QVERIFY2(plot->legend->outerRect().right() < oomX - 20, qPrintable(QString("legend ends at %1, the OOM at %2").arg(plot->legend->outerRect().right()).arg(oomX)));
        for (int g = 0; g < plot->graphCount(); ++g) {
            for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it) {
                QVERIFY(plot->xAxis->range().contains(it->key));
                QVERIFY(plot->yAxis->range().contains(it->value));
            }
        }
        saveShot(view.get(), "segments-what-if-1024");
        saveShot(plot, "what-if-chart-1024");
    }

    // A profiler trace records allocations but not the allocator's segments: the What-if panel
    // says so and offers no setting, as `memlens replay` refuses it and the advice prices no
    // allocator fix (replay/ReplayAdmission decides for all of them).
    void whatIfRefusesProfilerTraces()
    {
        auto doc = load(corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz");
        auto view = openView(doc, Page::Segments, QSize(1600, 1100));
        WhatIfPanel *panel = view->segments()->whatIf();
        QVERIFY2(panel->summaryText().contains("profiler trace"), qPrintable(panel->summaryText()));
        QSignalSpy replayed(panel, &WhatIfPanel::replayed);
        panel->setConfig("expandable_segments:True");
        QTest::qWait(200);
        QCOMPARE(replayed.size(), 0);
        QVERIFY(!panel->isReplaying());
        QVERIFY(!view->state()->whatIf());
        // A snapshot again: the panel replays.
        view->state()->setDocument(load(gpt2()));
        QVERIFY2(!panel->summaryText().contains("No replay"), qPrintable(panel->summaryText()));
        panel->setConfig("expandable_segments:True");
        QVERIFY(replayed.wait(30000));
    }

    // Hidden pages do not follow every cursor move: the Segments page recomputes once, when
    // it is shown, and then shows the cursor's event.
    void hiddenPagesCatchUpWhenShown()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Timeline, QSize(1200, 800));
        SegmentsPage *page = view->segments();
        QVERIFY(!page->isVisible());
        // Nor does a new document build the hidden page's event list and map (a quarter of a
        // second on a 12 M-entry run, before the first timeline frame).
        QCOMPARE(page->eventModel()->rowCount(), 0);
        QCOMPARE(page->map()->state().segments.size(), size_t(0));
        const std::optional<TracePoint> before = page->shownPoint();
        for (uint32_t e : {100u, 200u, 300u})
            view->state()->setSelectedEvent(EventId(e));
        QCOMPARE(page->shownPoint(), before);
        view->showPage(Page::Segments);
        QVERIFY(page->isVisible());
        QCOMPARE(page->shownPoint(), std::optional(TracePoint::after(EventId(300))));
        QCOMPARE(page->eventModel()->rowCount(), static_cast<int>(doc->devices.at(0).index->eventCount()));
        view->state()->setSelectedEvent(EventId(400));
        QCOMPARE(page->shownPoint(), std::optional(TracePoint::after(EventId(400)))); // visible: at once

        // Another document while the page is hidden: it lets the old one go, and shows the new one when shown.
        view->showPage(Page::Timeline);
        auto other = load(gpt2());
        view->state()->setDocument(other);
        QCOMPARE(page->eventModel()->rowCount(), 0);
        view->showPage(Page::Segments);
        QCOMPARE(page->eventModel()->rowCount(), static_cast<int>(other->devices.begin()->second.index->eventCount()));
        QCOMPARE(std::optional(page->map()->state().at), page->shownPoint());
    }

    void segmentsPageFollowsCursor()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        auto view = openView(doc, Page::Segments, QSize(1600, 1000));
        SegmentsPage *page = view->segments();
        const DeviceData &d = doc->devices.at(0);
        // Default: the last event.
        QCOMPARE(page->shownPoint(), std::optional(TracePoint::after(EventId(static_cast<uint32_t>(d.index->eventCount() - 1)))));
        // The shared cursor moves the map; at the OOM the verdict appears.
        const EventId oom = d.summary.ooms.at(0).event;
        view->state()->setSelectedEvent(oom);
        QCOMPARE(page->shownPoint(), std::optional(TracePoint::after(oom)));
        QVERIFY(page->map()->state().at == TracePoint::after(oom));
        QVERIFY2(page->verdictText().contains("fragmentation"), qPrintable(page->verdictText()));
        // The device still had 72 GiB free: both pages say what stopped the run in the same words.
        const QString limit = QString::fromLatin1(kProcessLimitFinding);
        QVERIFY2(page->verdictText().contains(limit), qPrintable(page->verdictText()));
        QVERIFY2(view->summaryPage()->factsText().contains(limit), qPrintable(view->summaryPage()->factsText()));
        QVERIFY(page->figuresText().contains("free in reserved 120 MiB"));
        // The list follows the cursor, and moving in the list moves the cursor.
        QCOMPARE(page->eventModel()->eventAt(page->eventList()->currentIndex().row()), oom);
        page->eventList()->setCurrentIndex(page->eventModel()->index(100, 0));
        QCOMPARE(view->state()->selectedEvent(), EventId(100));
        QCOMPARE(page->shownPoint(), std::optional(TracePoint::after(EventId(100))));
        // Clicking a block selects its allocation everywhere; hovering describes it.
        view->state()->setSelectedEvent(*d.summary.peakIndex);
        const LiveBlockInfo &largest = d.summary.topLiveAtPeak.front();
        const QRect r = page->map()->rectOfAllocation(largest.allocation);
        QVERIFY(!r.isEmpty());
        AllocationId under;
        const QString text = page->map()->describeAt(r.center(), &under);
        QCOMPARE(under, largest.allocation);
        QVERIFY2(text.contains(QString::fromStdString(formatBytes(largest.size))), qPrintable(text));
        QVERIFY(text.contains("Segment 0x"));
        QTest::mouseClick(page->map(), Qt::LeftButton, Qt::NoModifier, r.center());
        QCOMPARE(view->state()->selectedAllocation(), largest.allocation);
        // Colour per category on the timeline's menu colours the map's blocks by category too.
        view->state()->setSelectedAllocation(AllocationId::none());
        const QPoint inside(r.left() + 2, r.center().y());
        QCOMPARE(page->map()->grab().toImage().pixel(inside), bandColor(largest.allocation.index()).rgb());
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

    // Peak, OOM and End go where `--at peak|oom|end` goes; OOM on a run without one stays put.
    void momentButtonsMoveTheCursor()
    {
        for (const QString &file : {corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle", gpt2()}) {
            auto doc = load(file);
            auto view = openView(doc, Page::Segments, QSize(1400, 900));
            const DeviceData &d = doc->devices.at(0);
            auto click = [&](const QString &text) {
                for (QPushButton *b : view->segments()->findChildren<QPushButton *>())
                    if (b->text() == text)
                        QTest::mouseClick(b, Qt::LeftButton);
                return view->state()->selectedEvent();
            };
            QCOMPARE(click("Peak"), *d.summary.peakIndex);
            QCOMPARE(click("End"), EventId(static_cast<uint32_t>(d.index->eventCount() - 1)));
            const uint32_t ooms = static_cast<uint32_t>(std::count(d.index->events().action.begin(), d.index->events().action.end(), Action::Oom));
            if (ooms > 0)
                QCOMPARE(click("OOM"), d.summary.ooms.at(0).event);
            else
                QCOMPARE(click("OOM"), EventId(static_cast<uint32_t>(d.index->eventCount() - 1)));
            QVERIFY(view->state()->selectedEvent() && view->segments()->shownPoint() == TracePoint::after(*view->state()->selectedEvent()));
        }
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
        QCOMPARE(model.rowForEvent(EventId(1)), before);
        QCOMPARE(model.eventAt(before), EventId(1));
        model.setFilter(std::nullopt, std::nullopt);
        QCOMPARE(model.rowForEvent(EventId(42)), 42);
    }

    void segmentTableModel()
    {
        auto doc = load(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle");
        SegmentTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const DeviceData &d = doc->devices.at(0);
        const AllocatorState st = allocatorStateAt(*doc->snapshot, *d.index, d.index->end());
        model.setState(st);
        QCOMPARE(model.rowCount(), static_cast<int>(st.segments.size()));
        qulonglong total = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            total += model.index(r, SegmentTableModel::Size).data(Qt::EditRole).toULongLong();
        QCOMPARE(total, static_cast<qulonglong>(st.reserved));
    }

};

QTEST_MAIN(TestSegments)
#include "tst_segments.moc"
