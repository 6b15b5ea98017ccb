// The viewer's stacks/, summary/, estimator/: the call stacks and flame graph, the summary and live
// tensors pages, and the estimator panel.
#include "SyntheticLoraRun.h"
#include "ViewerTestSupport.h"
#include "ranks/RankUnitsModel.h"

using namespace memlens;

class TestPages : public QObject {
    Q_OBJECT

private slots:
    // "fits" in the fix list reads at WCAG's 4.5 : 1 on both row colours of both themes (the
    // dark theme's green was 3.3 : 1).
    void fitsTextContrast()
    {
        for (const char *theme : {"dark", "light"}) {
            QVERIFY(applyTheme(*qApp, theme));
            const QPalette p = qApp->palette();
            for (QPalette::ColorRole row : {QPalette::Base, QPalette::AlternateBase}) {
                for (const QColor &text : {goodTextColor(p), cautionTextColor(p)}) {
                    const double ratio = contrastRatio(text, p.color(row));
                    QVERIFY2(ratio >= 4.5, qPrintable(QString("%1: %2 on %3: %4 : 1").arg(theme, text.name(), p.color(row).name()).arg(ratio)));
                }
            }
        }
    }

    // Quit ends the application while an estimator window is open (a parentless estimator kept
    // it alive), and asking for the estimator again raises the one window instead of a second.
    void quitEndsTheAppAndOneEstimator()
    {
        MainWindow window;
        window.show();
        QAction *estimator = nullptr, *quit = nullptr;
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->text() == "Memory &Estimator…")
                estimator = a;
            if (a->text() == "&Quit")
                quit = a;
        }
        QVERIFY(estimator && quit);
        estimator->trigger();
        estimator->trigger();
        int panels = 0;
        for (QWidget *w : QApplication::topLevelWidgets())
            panels += qobject_cast<EstimatorPanel *>(w) && w->isVisible() ? 1 : 0;
        QCOMPARE(panels, 1);
        quit->trigger();
        // What keeps an application running after its last window: a visible window of its own.
        for (QWidget *w : QApplication::topLevelWidgets())
            QVERIFY2(!w->isVisible() || w->parentWidget(), qPrintable(w->windowTitle() + " is still open on its own"));
    }

    // The window keeps the width it was given as documents load and pages change (it grew
    // 1280 → 1355 → 1487 px as labels took their text; at 1024 × 700 the Segments page forced
    // 1236 px): every page, at a desktop size and at a small laptop's.
    void windowKeepsItsWidth_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1024x700") << QSize(1024, 700);
    }

    void windowKeepsItsWidth()
    {
        QFETCH(QSize, size);
        MainWindow window;
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (const QString &file : {corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst", corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle"}) {
            DocumentView *view = window.openFile(file);
            QTRY_VERIFY_WITH_TIMEOUT(view->state()->deviceLayout(), 30000);
            for (Page page : kPages) {
                view->showPage(page);
                QTest::qWait(50);
                QVERIFY2(window.width() == size.width(), qPrintable(QString("%1 page: %2 px").arg(QString::fromLatin1(kPageNames.name(page))).arg(window.width())));
            }
            view->state()->setSelectedEvent(view->document()->devices.begin()->second.summary.peakIndex.value_or(EventId(0)));
            QTest::qWait(50);
            QCOMPARE(window.width(), size.width());
            if (size.width() == 1024) {
                const DeviceData &d = view->document()->devices.begin()->second;
                if (!d.summary.topLiveAtPeak.empty())
                    view->state()->setSelectedAllocation(d.summary.topLiveAtPeak.front().allocation);
                for (Page page : {Page::Segments, Page::Summary, Page::Live, Page::Stacks}) {
                    view->showPage(page);
                    saveShot(&window, QString("%1-1024").arg(QString::fromLatin1(kPageNames.name(page))));
                }
            }
        }
    }

    // Tab leaves a table for the next control, on every page, as Shift+Tab does: Qt's tables
    // move between their cells on Tab, which kept the keyboard inside them.
    void tabLeavesTables()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        DocumentView *view = window.openFile(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        QTRY_VERIFY_WITH_TIMEOUT(view->state()->deviceLayout(), 30000);
        int tables = 0;
        for (Page page : kPages) {
            view->showPage(page);
            QTest::qWait(50);
            for (QTableView *table : view->findChildren<QTableView *>()) {
                if (!table->isVisible() || table->model()->rowCount() < 2)
                    continue;
                table->setFocus();
                table->setCurrentIndex(table->model()->index(0, 0));
                QTRY_VERIFY(table->hasFocus());
                QTest::keyClick(table, Qt::Key_Tab);
                QVERIFY2(!table->hasFocus(), qPrintable(QString::fromLatin1(kPageNames.name(page)) + ": Tab stayed in " + table->objectName()));
                ++tables;
            }
        }
        QVERIFY2(tables >= 3, qPrintable(QString::number(tables)));
    }

    // Double-clicking a rank opens it in one tab; again, it shows that tab.
    void oneTabPerRank()
    {
        QTemporaryDir dir;
        for (int r = 0; r < 2; ++r)
            QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", dir.filePath(QString("rank%1_memory_snapshot.pickle").arg(r))));
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openFile(dir.path());
        auto *page = window.findChild<RankOverviewPage *>();
        QVERIFY(page);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isSummarizing(), 30000);
        QTableView *table = page->table();
        QVERIFY(table && table->model()->rowCount() == 2);
        const int before = window.tabs()->count();
        QSignalSpy doubleClicked(table, &QAbstractItemView::doubleClicked);
        for (int twice = 0; twice < 2; ++twice) {
            const QRect cell = table->visualRect(table->model()->index(0, 0));
            // As a mouse does it: a click, then the second press arrives as a double-click.
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
            QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
            QCOMPARE(doubleClicked.count(), twice + 1);
            QCOMPARE(window.tabs()->count(), before + 1);
        }
    }

    // A sharded job's overview puts its units side by side: a row per unit, a column per rank,
    // each cell what that rank's own file puts in the unit at its peak; a job without units has
    // no such table.
    void ranksUnitsSideBySide()
    {
        QTemporaryDir dir;
        QString error;
        runPythonTool("make_fsdp2_run.py", {"--layers", "4", "--ranks", dir.filePath("job"), dir.filePath("one.pickle")}, &error);
        runPythonTool("make_fsdp2_run.py", {"--layers", "4", "--tokens", "4096", dir.filePath("other.pickle")}, &error);
        const QString folder = dir.filePath("job/iteration_1");
        QVERIFY2(QFileInfo::exists(folder + "/rank3_memory_snapshot.pickle") && QFileInfo::exists(dir.filePath("other.pickle")), qPrintable(error));
        QVERIFY(QFile::remove(folder + "/rank2_memory_snapshot.pickle") && QFile::copy(dir.filePath("other.pickle"), folder + "/rank2_memory_snapshot.pickle"));
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        window.openFile(folder);
        auto *page = window.findChild<RankOverviewPage *>();
        QVERIFY(page);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isSummarizing(), 30000);
        QAbstractItemModelTester tester(page->unitsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page->unitsTable()->isVisible());
        saveShot(&window, "ranks-units");
        const QAbstractItemModel *units = page->unitsTable()->model();
        QCOMPARE(units->columnCount(), 5);
        for (int rank = 0; rank < 4; ++rank) {
            const auto snapshot = loadSnapshot((folder + QString("/rank%1_memory_snapshot.pickle").arg(rank)).toStdString());
            const DeviceIndex index(*snapshot, 0);
            const DeviceSummary own = summarizeDevice(*snapshot, index, 0);
            QCOMPARE(size_t(units->rowCount()), own.unitsAtPeak.size());
            for (const UnitBytes &u : own.unitsAtPeak) {
                const QString name = !u.unit.empty() ? QString::fromStdString(u.unit) : u.beforeTrace ? "(made before the trace)" : "(outside every unit)";
                const QModelIndexList found = units->match(units->index(0, 0), Qt::DisplayRole, name, 1, Qt::MatchExactly);
                QVERIFY2(found.size() == 1, qPrintable(name));
                QCOMPARE(units->index(found[0].row(), rank + 1).data(Qt::UserRole).toULongLong(), u.bytes);
            }
            if (rank == 0) // the first row holds most
                QCOMPARE(units->index(0, 1).data(Qt::UserRole).toULongLong(), unitsByBytes(own.unitsAtPeak).front().bytes);
        }
        QVERIFY(units->index(0, 3).data(Qt::BackgroundRole).isValid()); // rank 2, off its row's median
        QVERIFY(!units->index(0, 1).data(Qt::BackgroundRole).isValid());

        QTemporaryDir plain;
        for (int r = 0; r < 2; ++r)
            QVERIFY(QFile::copy(corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", plain.filePath(QString("rank%1_memory_snapshot.pickle").arg(r))));
        window.openFile(plain.path());
        RankOverviewPage *second = nullptr;
        for (RankOverviewPage *p : window.findChildren<RankOverviewPage *>())
            second = p != page ? p : second;
        QVERIFY(second);
        QTRY_VERIFY_WITH_TIMEOUT(!second->isSummarizing(), 30000);
        QVERIFY(!second->unitsTable()->isVisible() && second->unitsModel()->rowCount() == 0);
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    // A hidden page is filled when it is shown, not at each document the load brings: another
    // file opened behind the Live and Stacks pages leaves them as they were until they show,
    // then they show that file's peak.
    void hiddenPagesFillWhenShown()
    {
        auto first = load(gpt2());
        auto view = openView(first, Page::Live, QSize(1400, 900));
        const auto rows = [&] { return view->live()->table()->model()->rowCount(); };
        QCOMPARE(rows(), static_cast<int>(first->devices.at(0).summary.liveBlocksAtPeak));
        view->showPage(Page::Stacks);
        const uint64_t firstStacks = view->stacks()->tree()->root().bytes;
        view->showPage(Page::Timeline);
        auto second = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const DeviceSummary &s = second->devices.at(0).summary;
        QVERIFY(s.liveBlocksAtPeak != first->devices.at(0).summary.liveBlocksAtPeak);
        view->setDocument({second, buildTimelineLayouts(second)});
        view->showPage(Page::Timeline);
        QCOMPARE(rows(), static_cast<int>(first->devices.at(0).summary.liveBlocksAtPeak));
        QCOMPARE(view->stacks()->tree()->root().bytes, firstStacks);
        view->showPage(Page::Live);
        QCOMPARE(rows(), static_cast<int>(s.liveBlocksAtPeak));
        view->showPage(Page::Stacks);
        QCOMPARE(view->stacks()->tree()->root().bytes, s.peakActiveBytes);
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
        QCOMPARE(view->state()->visibleFirstEvent(), EventId(100));
        QCOMPARE(view->state()->visibleLastEvent(), EventId(400));
        view->showPage(Page::Stacks);
        const EventTable &ev = doc->devices.at(0).index->events();
        uint64_t expected = 0;
        for (uint32_t e = 100; e <= 400; ++e)
            expected += ev.action[e] == Action::Alloc ? ev.size[e] : 0;
        QVERIFY(expected > 0 && expected < whole);
        QCOMPARE(view->stacks()->tree()->root().bytes, expected);
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
        const CallTreeNodeId first = page->tree()->root().children.front();
        QPoint where;
        for (int y = 0; y < flame->height() && where.isNull(); y += 3)
            for (int x = 0; x < flame->width() && where.isNull(); x += 5)
                if (flame->nodeAt(QPoint(x, y)) == first)
                    where = QPoint(x, y);
        QVERIFY(!where.isNull());
        QTest::mouseClick(flame, Qt::LeftButton, Qt::NoModifier, where);
        QCOMPARE(flame->zoomedNode(), first);
        QCOMPARE(page->treeView()->currentIndex().data(CallTreeModel::NodeRole).toUInt(), first.index());
        // Allocated in a range: what the visible events allocated.
        view->state()->setVisibleRange({0, 999.5});
        QCOMPARE(view->state()->visibleLastEvent(), EventId(999));
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

    // The corpus OOM at its 6 GiB limit: two allocator settings fit by well under 1 % of the
    // capacity (the replay's error) and say so, dimmed; bf16 fits with room and is not dimmed.
    void fixesThatFitByAHairSayTheirMargin()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const Advice &advice = doc->devices.at(0).advice;
        QVERIFY(advice.oom && advice.capacity);
        auto view = openView(doc, Page::Summary, QSize(1280, 800));
        FixList *fixes = view->summaryPage()->fixList();
        QCOMPARE(fixes->count(), static_cast<int>(advice.fixes.size()));
        int thin = 0, roomy = 0;
        for (int i = 0; i < fixes->count(); ++i) {
            const Fix &f = advice.fixes[size_t(i)];
            if (!f.fits.value_or(false))
                continue;
            const uint64_t margin = *advice.capacity - f.peakAfterBytes;
            QCOMPARE(f.marginBytes, std::optional<uint64_t>(margin));
            QVERIFY2(fixes->item(i)->text().contains(QString::fromStdString(formatBytes(margin)) + " to spare"), qPrintable(fixes->item(i)->text()));
            const bool hair = double(margin) < 0.01 * double(*advice.capacity) && f.effort == Effort::Config;
            QCOMPARE(f.thinMargin, hair || (f.effort != Effort::Config && double(margin) < 0.05 * double(*advice.capacity)));
            QCOMPARE(fixes->item(i)->foreground().color() == cautionTextColor(fixes->palette()), f.thinMargin);
            if (f.thinMargin && f.effort == Effort::Config)
                QVERIFY(f.why.find("the trace ends at the OOM") != std::string::npos);
            thin += f.thinMargin;
            roomy += !f.thinMargin;
        }
        QVERIFY(thin >= 1 && roomy >= 1);
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
        // Typed into the min-size field, the bound applies as typed, without Enter.
        page->setFilter(QString(), 0, 0);
        auto *minSize = page->findChildren<QLineEdit *>().at(1);
        QVERIFY(minSize->placeholderText().startsWith("min size"));
        QTest::keyClicks(minSize, "700M");
        QCOMPARE(page->table()->model()->rowCount(), 3);
        minSize->clear();
        // A filter that leaves nothing says so instead of an empty grid; its link clears it.
        QVERIFY(page->table()->isVisible() && !page->emptyNotice()->isVisible());
        QTest::keyClicks(page->findChildren<QLineEdit *>().at(0), "no frame is called this");
        QCOMPARE(page->table()->model()->rowCount(), 0);
        QVERIFY(page->emptyNotice()->isVisible() && !page->table()->isVisible());
        QVERIFY(page->emptyNotice()->text().contains(QString("None of the %1 live allocations").arg(s.liveBlocksAtPeak)));
        saveShot(view.get(), "live-filter-empty");
        emit page->emptyNotice()->linkActivated("clear");
        QCOMPARE(page->table()->model()->rowCount(), static_cast<int>(s.liveBlocksAtPeak));
        QVERIFY(page->table()->isVisible());
        // Selecting a row selects the allocation everywhere.
        page->table()->setCurrentIndex(page->table()->model()->index(0, 0));
        QCOMPARE(view->state()->selectedAllocation(), AllocationId(page->table()->model()->index(0, 0).data(LiveAllocationModel::AllocationRole).toUInt()));
        // CSV export: a header and one line per live allocation.
        QTemporaryDir dir;
        QVERIFY(page->exportCsv(dir.filePath("live.csv")).isEmpty());
        QFile f(dir.filePath("live.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), static_cast<qsizetype>(s.liveBlocksAtPeak + 1));
        // Moving the cursor updates the table.
        view->state()->setSelectedEvent(EventId(100));
        page->setFilter(QString(), 0, 0);
        QCOMPARE(page->table()->model()->rowCount(), static_cast<int>(doc->devices.at(0).index->liveAt(TracePoint::after(EventId(100))).size()));
    }

    // An FSDP run's By unit page: a bar per unit at the cursor (the peak), and a click on a bar
    // lists that unit's allocations on the Live page, as many as the summary counts for it; the
    // filter's ✕ shows every allocation again. A run without unit marks has no such page.
    void unitsPage()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("fsdp.pickle");
        QString error;
        runPythonTool("make_fsdp2_run.py", {file, "--layers", "8"}, &error);
        QVERIFY2(QFile::exists(file), qPrintable(error));
        auto doc = load(file);
        auto view = openView(doc, Page::Modules, QSize(1400, 900));
        UnitsPage *page = view->units();
        QVERIFY(page->isVisible());
        const DeviceSummary &s = doc->devices.at(0).summary;
        QVERIFY2(page->readout().contains("10 units hold"), qPrintable(page->readout()));
        const auto layer1 = std::find_if(s.unitsAtPeak.begin(), s.unitsAtPeak.end(), [](const UnitBytes &u) { return u.unit == "layers.1"; });
        QVERIFY(layer1 != s.unitsAtPeak.end());
        const int row = int(layer1 - s.unitsAtPeak.begin());
        QCustomPlot *plot = page->plot();
        const QPoint bar(int(plot->xAxis->coordToPixel(double(layer1->bytes) / 2)), int(plot->yAxis->coordToPixel(row)));
        int32_t unit = -2;
        QVERIFY(page->unitAt(bar, unit));
        QCOMPARE(s.units->names()[size_t(unit)], std::string("layers.1"));
        saveShot(view.get(), "units-page");
        QTest::mouseClick(plot, Qt::LeftButton, {}, bar);
        LiveTensorsPage *live = view->live();
        QVERIFY(live->isVisible());
        QCOMPARE(uint64_t(live->table()->model()->rowCount()), layer1->blocks);
        QVERIFY2(live->totalsText().contains(bytesText(layer1->bytes)), qPrintable(live->totalsText()));
        live->clearFilters();
        QCOMPARE(uint64_t(live->table()->model()->rowCount()), s.liveBlocksAtPeak);

        auto plain = load(gpt2());
        auto other = openView(plain, Page::Summary, QSize(1400, 900));
        QVERIFY(!other->findChild<QTabWidget *>()->isTabVisible(other->findChild<QTabWidget *>()->indexOf(other->units())));
    }

    // The By layer page: a bar per layer of GPT-2's loop (found in the stacks), each what the
    // summary says the layer keeps for backward; a click on a layer shows its forward on the
    // timeline. ResNet-50 has no single layer loop and no such page.
    // Every link the Summary's figures hold leads to a page the file has (a link to a hidden page
    // did nothing): units, layers and steps, on runs with and without each.
    void summaryLinksLeadToShownPages()
    {
        QTemporaryDir dir;
        QString error;
        runPythonTool("make_fsdp2_run.py", {"--layers", "4", dir.filePath("fsdp.pickle")}, &error);
        QVERIFY2(QFileInfo::exists(dir.filePath("fsdp.pickle")), qPrintable(error));
        for (const QString &file : {gpt2(), corpusDir() + "/snapshots/resnet50_bf16_sgd/snapshot.pickle",
                                    corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle", dir.filePath("fsdp.pickle")}) {
            auto view = openView(load(file), Page::Summary, QSize(1400, 900));
            const QString figures = view->summaryPage()->figuresLabel()->text();
            for (const auto &[link, page] : {std::pair{"href='units'", Page::Modules}, {"href='layers'", Page::Layers}, {"href='steps'", Page::Steps}})
                QVERIFY2(figures.contains(link) == view->hasPage(page), qPrintable(file + ": " + link));
        }
    }

    void layersPage()
    {
        auto doc = load(gpt2());
        auto view = openView(doc, Page::Layers, QSize(1400, 900));
        LayersPage *page = view->layers();
        QVERIFY(page->isVisible());
        const LayersSummary &l = *doc->devices.at(0).summary.layers;
        QVERIFY2(page->readout().contains("12 layers"), qPrintable(page->readout()));
        QCustomPlot *plot = page->plot();
        const LayerPassFigures &f = l.forward.at(3);
        const QPoint bar(int(plot->xAxis->coordToPixel(3)), int(plot->yAxis->coordToPixel(double(f.retainedBytes) / 2)));
        QCOMPARE(page->layerAt(bar), 3);
        saveShot(view.get(), "layers-page");
        QTest::mouseClick(plot, Qt::LeftButton, {}, bar);
        const VisibleRange full = view->state()->fullRange();
        QVERIFY(view->timeline()->isVisible());
        const VisibleRange shown = view->state()->visibleRange(), window = view->state()->rangeOfEvents(f.first, EventId(f.end.index() - 1));
        QVERIFY(shown.first <= window.first && window.last <= shown.last);
        QVERIFY(shown.last - shown.first < (full.last - full.first) / 10);

        auto resnet = load(corpusDir() + "/snapshots/resnet50_bf16_sgd/snapshot.pickle");
        auto other = openView(resnet, Page::Summary, QSize(1400, 900));
        auto *tabs = other->findChild<QTabWidget *>();
        QVERIFY(!tabs->isTabVisible(tabs->indexOf(other->layers())));
        // Asking for a page the file does not have (Ctrl+9 here, Ctrl+8 By unit) leaves the page shown.
        for (Page missing : {Page::Layers, Page::Modules, Page::Categories}) {
            other->showPage(missing);
            QCOMPARE(other->currentPageKind(), Page::Summary);
            QCOMPARE(tabs->currentWidget(), other->summaryPage());
        }
    }

    // Private pools on the Summary: each with its segment count, as the command line states it
    // (the window gave reserved and allocated bytes only), and what made it.
    void summaryPoolsCountSegments()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("pools.pickle");
        QString error;
        runPythonTool("make_private_pools.py", {gpt2(), file}, &error);
        QVERIFY2(QFile::exists(file), qPrintable(error));
        auto doc = load(file);
        auto view = openView(doc, Page::Summary, QSize(1400, 900));
        const QString text = view->summaryPage()->factsText();
        for (const PoolShare &p : doc->devices.at(0).summary.poolsAtEnd) {
            const QString segments = p.segments == 1 ? QString("in 1 segment,") : QString("in %1 segments,").arg(p.segments);
            QVERIFY2(text.contains(QString("%1 reserved %2").arg(bytesText(p.reserved), segments)), qPrintable(text));
        }
        QVERIFY(text.contains("vLLM"));
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

    // An OOM run is compared by what it needed at least, not by the peak the OOM cut short, and
    // its device (the capacity the OOM shows) is a GPU choice that the fit buttons take.
    void estimatorOnAnOomRun()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const DeviceData &d = doc->devices.at(0);
        QVERIFY(d.advice.oom && d.advice.capacity);
        QVERIFY(d.advice.peakBytes > d.summary.peakActiveBytes); // allocated there plus the failed request
        EstimatorPanel panel;
        panel.resize(1100, 600);
        panel.show();
        panel.setMeasurement(d, "oom_snapshot.pickle");
        panel.setInferred(d.advice.setup);
        const QString figures = panel.figuresText();
        QVERIFY2(figures.contains("needed at least <b>" + QString::fromStdString(formatBytes(d.advice.peakBytes)) + "</b>"), qPrintable(figures));
        QVERIFY(!figures.contains(QString("<b>%1</b> (estimate").arg(QString::fromStdString(formatBytes(d.summary.peakActiveBytes)))));
        QComboBox *gpu = panel.gpuBox();
        const int own = gpu->findData(QVariant::fromValue<qulonglong>(*d.advice.capacity));
        QVERIFY(own >= 0 && gpu->itemText(own).startsWith("this run's device"));
        panel.solveFit(true);
        QVERIFY(panel.fitText().startsWith("choose a GPU first"));
        gpu->setCurrentIndex(own);
        panel.solveFit(true);
        QVERIFY2(panel.fitText().contains("largest batch that fits") || panel.fitText() == "not even 1 fits", qPrintable(panel.fitText()));
        // Measured again (the user moved to another document): still one such choice.
        panel.setMeasurement(d, "oom_snapshot.pickle");
        int runs = 0;
        for (int i = 0; i < gpu->count(); ++i)
            runs += gpu->itemText(i).startsWith("this run's device");
        QCOMPARE(runs, 1);
    }

    // One fix, one saving: on the recording's own setup the estimator lists each technique the
    // advice priced with the Summary's saving (the model's own, +25 % off the recording here,
    // beside it); once the user changes the setup, the savings are the model's for that setup.
    // It listed bf16 3.35 GiB beside the Summary's 2.92 GiB.
    void estimatorPricesTheRecordingAsTheSummary()
    {
        auto doc = load(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const DeviceData &d = doc->devices.at(0);
        EstimatorPanel panel;
        panel.resize(1100, 600);
        panel.show();
        panel.setMeasurement(d, "oom_snapshot.pickle");
        panel.setInferred(d.advice.setup);
        auto lineOf = [&](const std::string &technique) {
            for (int i = 0; i < panel.savingsList()->count(); ++i) {
                if (panel.savingsList()->item(i)->data(Qt::UserRole).toString() == QString::fromStdString(technique))
                    return panel.savingsList()->item(i)->text();
            }
            return QString();
        };
        int priced = 0;
        for (const Fix &f : d.advice.fixes) {
            const QString line = lineOf(f.technique);
            if (line.isEmpty())
                continue; // not a technique of the estimator (an allocator setting, sharding)
            ++priced;
            QVERIFY2(line.startsWith(QString::fromStdString(f.technique + ": saves " + formatBytes(uint64_t(f.savesBytes)) + " (model: ")), qPrintable(line));
        }
        QVERIFY(priced >= 4);
        QVERIFY(panel.figuresText().contains("Savings priced on the recording"));
        EstimateInput other = panel.input();
        other.batch = 2;
        panel.setInput(other);
        QVERIFY(!panel.figuresText().contains("Savings priced on the recording"));
        QVERIFY2(!lineOf("bf16").contains("(model:"), qPrintable(lineOf("bf16")));
    }

    // A bf16 LoRA run of a Llama-shaped model no preset matches: the estimator opens on a shape
    // with the inferred parameter count, named as inferred, and a shape the user then picks is
    // not presented as the estimator's error.
    void estimatorShapeIsTheInferredModel()
    {
        SyntheticRunTruth truth;
        const std::shared_ptr<const Snapshot> snapshot = loadSnapshotFromMemory(llamaBf16LoraRun(truth).pickle(), "llama32_bf16_lora.pickle");
        const LoadedDocument loaded = collectStages([&](const PipelineSink &sink) {
            runDocumentStages("llama32_bf16_lora.pickle", snapshot, {}, nullptr, sink, StopAfter::Document);
        }, adviseDevice);
        const DeviceData &d = loaded.document->devices.at(0);
        const InferredSetup &setup = d.advice.setup;
        QVERIFY(setup.params.value && setup.shapeFromTemplate);
        QVERIFY(std::abs(double(*setup.params.value) - double(truth.params)) < 0.01 * double(truth.params));
        EstimatorPanel panel;
        panel.resize(1100, 600);
        panel.show();
        panel.setMeasurement(d, "llama32_bf16_lora.pickle");
        panel.setInferred(setup);
        const uint64_t shaped = parameterCount(panel.input().model);
        QVERIFY2(std::abs(double(shaped) - double(*setup.params.value)) <= 0.02 * double(*setup.params.value),
                 qPrintable(QString("%1 parameters in the shape, %2 inferred").arg(shaped).arg(*setup.params.value)));
        QVERIFY(panel.input().model.name.starts_with("as inferred"));
        QCOMPARE(panel.input().loraRank > 0, setup.input.loraRank > 0);
        QVERIFY(!panel.figuresText().contains("not comparable"));
        EstimateInput other = panel.input();
        other.model = *findModel("gpt2-small");
        panel.setInput(other);
        QVERIFY2(panel.figuresText().contains("not comparable") && !panel.figuresText().contains("(estimate +"), qPrintable(panel.figuresText()));
    }

    // A ResNet-50 training trace recorded without with_stack (operators only, begun mid-training
    // so the weights predate it): the window named no model, pre-filled gpt2-small and found
    // nothing to save while nearly all of the peak is activations.
    void resnetTraceOffersAFixAndItsShape()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("resnet50_bf16.pt.trace.json");
        QString error;
        const QJsonObject facts = QJsonDocument::fromJson(runPythonTool("make_resnet_trace.py", {path, "64", "3"}, &error)).object();
        QVERIFY2(!facts.isEmpty(), qPrintable(error));
        auto doc = load(path);
        const DeviceData &d = doc->devices.at(0);
        QCOMPARE(d.summary.peakActiveBytes, static_cast<uint64_t>(facts["peak_total_allocated"].toDouble()));
        QVERIFY(facts["forward_saved_at_peak"].toDouble() > 0.85 * facts["peak_total_allocated"].toDouble());
        const InferredSetup &setup = d.advice.setup;
        QCOMPARE(setup.preset.value.value_or(""), std::string("resnet50"));
        QCOMPARE(*setup.params.value, static_cast<uint64_t>(facts["parameters"].toDouble()));
        QCOMPARE(setup.batch.value.value_or(0), uint64_t(64));
        auto view = openView(doc, Page::Summary, QSize(1280, 800));
        FixList *fixes = view->summaryPage()->fixList();
        QVERIFY(fixes->count() > 0);
        bool halfBatch = false;
        for (int i = 0; i < fixes->count(); ++i)
            halfBatch = halfBatch || fixes->item(i)->text().contains("half-batch");
        QVERIFY2(halfBatch, qPrintable(fixes->item(0)->text()));
        EstimatorPanel panel;
        panel.resize(1100, 600);
        panel.show();
        panel.setMeasurement(d, "resnet50_bf16.pt.trace.json");
        panel.setInferred(setup);
        QCOMPARE(panel.input().model.name, std::string("resnet50"));
        QCOMPARE(panel.input().batch, 64);
        QVERIFY2(!panel.figuresText().contains("not comparable"), qPrintable(panel.figuresText()));
        saveShot(view.get(), "resnet-trace-summary");
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
        panel.setMeasurement(doc->devices.at(0), "snapshot.pickle");
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

};

QTEST_MAIN(TestPages)
#include "tst_pages.moc"
