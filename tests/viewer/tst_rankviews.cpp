// The viewer's ranks/ with several dumps per rank: the rank × step heatmap, a rank's dumps opened
// as one stitched run, and File ▸ Watch Folder… taking dumps as a job writes them. Dumps are cut
// from the corpus run with varying sequence lengths (tests/tools/cut_dumps.py, every 5 steps,
// 6,000 entries each, so each two are apart by a gap).
#include "ViewerTestSupport.h"
#include "ranks/RankChart.h"
#include "ranks/RankStepHeatmap.h"
#include "jobs/StitchedRunStages.h"
#include "pipeline/RankStitch.h"
#include "questions/ExportQuestion.h"
#include "export/DatasetFigures.h"

#include <QDirIterator>

using namespace memlens;

namespace {

// The dumps of rank `rank`, by step (5, 10, 15, 20, 24).
QStringList cutDumps(const QString &out, int rank)
{
    const QString source = corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
    QString error;
    const QByteArray lines = runPythonTool("cut_dumps.py", {source, out, "--every", "5", "--window", "6000", "--rank", QString::number(rank)}, &error);
    QStringList files;
    for (const QByteArray &line : lines.split('\n')) {
        if (!line.isEmpty())
            files << QJsonDocument::fromJson(line).object()["file"].toString();
    }
    return files;
}

// As a job lands a dump: written under a temporary name, then renamed into place.
void land(const QString &dump, const QString &source, const QString &folder)
{
    const QString to = folder + dump.mid(source.size());
    QDir().mkpath(QFileInfo(to).path());
    QVERIFY(QFile::copy(dump, to + ".tmp"));
    QVERIFY(QFile::rename(to + ".tmp", to));
}

DocumentView *stitchedTab(MainWindow &window)
{
    for (int i = 0; i < window.tabs()->count(); ++i) {
        if (auto *view = qobject_cast<DocumentView *>(window.tabs()->widget(i)); view && view->path().contains("(stitched)"))
            return view;
    }
    return nullptr;
}

} // namespace

class TestRankViews : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    void watchHeatmapAndStitchedRun()
    {
        QTemporaryDir source, watched;
        const QStringList rank0 = cutDumps(source.path(), 0), rank1 = cutDumps(source.path(), 1);
        QCOMPARE(rank0.size(), 5);
        // Ranks 0 and 1 as cut; rank 1 ran out of memory at step 10 (the corpus OOM dump in its
        // place), and rank 2 is another run altogether (GPT-2, peaking far from the others).
        for (int k = 0; k < 2; ++k) {
            land(rank0[k], source.path(), watched.path());
            if (k == 0)
                land(rank1[k], source.path(), watched.path());
            const QString step = QString("/iteration_%1/").arg(5 * (k + 1));
            QVERIFY(QFile::copy(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", watched.path() + step + "rank2_memory_snapshot.pickle"));
        }
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle", watched.path() + "/iteration_10/rank1_memory_snapshot.pickle"));
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        RankOverviewPage *page = window.openFolder(watched.path(), true);
        QVERIFY(page && page->isWatching());
        QSignalSpy grid(page, &RankOverviewPage::gridSummarized);
        QTRY_VERIFY_WITH_TIMEOUT(grid.count() > 0, 30000);
        RankStepHeatmap *heatmap = page->heatmap();
        QVERIFY(heatmap->isVisible());
        QCOMPARE(heatmap->grid().ranks, (std::vector<int>{0, 1, 2}));
        QCOMPARE(heatmap->grid().steps.size(), size_t(2));
        // Each of the six dumps was summarised once: the table's step is not summarised again
        // for the heatmap, and showing the other step takes the heatmap's figures at once.
        QTRY_VERIFY_WITH_TIMEOUT(!page->isSummarizing(), 30000);
        QCOMPARE(page->dumpsSummarised(), size_t(6));
        const std::optional<int64_t> shown = page->folder().latestStep();
        page->showStep(page->folder().steps.front());
        QVERIFY(!page->isSummarizing());
        QCOMPARE(page->model()->ranks().size(), size_t(3));
        QCOMPARE(page->dumpsSummarised(), size_t(6));
        page->showStep(shown);

        // The drawn cells follow the figures: rank 0's step-10 dump peaks 3.4 times higher than
        // its step-5 one, so its cell is darker (light theme); rank 1's OOM is red; rank 2, off
        // the median of step 5, is outlined there.
        QVERIFY(applyTheme(*qApp, "light"));
        const QImage image = heatmap->grab().toImage();
        auto colorAt = [&](int row, int column) { return image.pixelColor(heatmap->cellRect(row, column).center().toPoint()); };
        QVERIFY(colorAt(0, 1).lightness() < colorAt(0, 0).lightness() - 40);
        // The colour scale beside the cells reads from the highest peak's colour (its top) to
        // none (its bottom): the darkest non-OOM cell matches the scale's top.
        const QRectF scale = heatmap->scaleRect();
        QVERIFY(scale.left() > heatmap->cellRect(0, int(heatmap->grid().steps.size()) - 1).right());
        const QColor top = image.pixelColor(QPointF(scale.center().x(), scale.top() + 1).toPoint());
        const QColor bottom = image.pixelColor(QPointF(scale.center().x(), scale.bottom() - 2).toPoint());
        QVERIFY2(top.lightness() < bottom.lightness() - 100, qPrintable(top.name() + " " + bottom.name()));
        int darkest = 255;
        for (size_t r = 0; r < heatmap->grid().ranks.size(); ++r)
            for (size_t c = 0; c < heatmap->grid().steps.size(); ++c)
                if (heatmap->grid().at(r, c) && !heatmap->grid().at(r, c)->oom)
                    darkest = std::min(darkest, colorAt(int(r), int(c)).lightness());
        QVERIFY2(std::abs(darkest - top.lightness()) <= 3, qPrintable(QString("%1 vs %2").arg(darkest).arg(top.lightness())));
        QVERIFY(heatmap->grid().at(1, 1)->oom && !heatmap->grid().at(0, 1)->oom);
        QCOMPARE(colorAt(1, 1), QColor(220, 40, 40));
        QVERIFY(heatmap->grid().at(2, 0)->outlier && !heatmap->grid().at(0, 0)->outlier && !heatmap->grid().at(1, 0)->outlier);
        const QRectF outlined = heatmap->cellRect(2, 0);
        bool orange = false; // the outline runs along the cell's top edge
        for (int y = int(outlined.top()); y < int(outlined.top()) + 4; ++y)
            orange = orange || image.pixelColor(int(outlined.center().x()), y) == QColor(240, 140, 20);
        QVERIFY(orange);
        QTRY_VERIFY(!page->isSummarizing()); // showStep(shown) summarises that step again
        saveShot(&window, "rank-step-heatmap");
        if (qEnvironmentVariableIsSet("MEMLENS_SHOTS")) { // the colour scale in the dark theme too
            applyTheme(*qApp, "dark");
            QTest::qWait(2500); // the watch takes the dumps copied in, once, within a second or two
            QTRY_VERIFY(!page->isSummarizing());
            saveShot(&window, "rank-step-heatmap-dark");
            applyTheme(*qApp, "light");
        }

        // Double-clicking rank 0 opens its dumps stitched into one run: one gap between them.
        const QPointF rank0Cell = heatmap->cellRect(0, 1).center();
        QTest::mouseDClick(heatmap, Qt::LeftButton, {}, rank0Cell.toPoint());
        DocumentView *view = stitchedTab(window);
        QVERIFY(view);
        QTRY_VERIFY_WITH_TIMEOUT(view->document() && view->state()->deviceLayout(), 30000);
        QCOMPARE(view->document()->snapshot->gaps.size(), size_t(1));
        const StitchedRun direct = stitchRank(findRankFiles(watched.path().toStdString()), 0, nullptr);
        QCOMPARE(view->document()->devices.at(0).summary.peakActiveBytes, summarizeDevice(*direct.snapshot, DeviceIndex(*direct.snapshot, 0), 5).peakActiveBytes);
        view->showPage(Page::Timeline);
        QCOMPARE(window.tabs()->currentWidget(), view);
        // Save Session says why a stitched run cannot be a session, instead of writing one that
        // names no file.
        for (QAction *a : window.findChildren<QAction *>()) {
            if (a->text() == "&Save Session")
                a->trigger();
        }
        QTRY_VERIFY(window.findChild<QMessageBox *>("sessionNotSaved"));
        window.findChild<QMessageBox *>("sessionNotSaved")->close();

        // A dump lands for each rank: the heatmap gains the step, the open stitched run takes its
        // dump (a second gap), and the user stays on the tab and page they are on.
        land(rank0[2], source.path(), watched.path());
        land(rank1[2], source.path(), watched.path());
        QTRY_VERIFY_WITH_TIMEOUT(heatmap->grid().steps.size() == 3, 30000);
        QVERIFY(!heatmap->grid().at(2, 2)); // rank 2 wrote nothing at step 15
        // Nobody picked a step in the overview: it follows the job to the newest (it stayed on 10).
        QTRY_VERIFY_WITH_TIMEOUT(!page->model()->ranks().empty() && page->model()->ranks().front().file.step == page->folder().latestStep(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(view->document()->snapshot->gaps.size() == 2, 30000);
        QCOMPARE(window.tabs()->currentWidget(), view);
        QCOMPARE(view->currentPageKind(), Page::Timeline);
        saveShot(&window, "stitched-run-watched");
    }

    // One rank's dumps: each step's peak is a bar as tall as its share of the highest, where a
    // colour per cell made one block of nearly one shade.
    void oneRankDrawsItsPeaksPerStep()
    {
        QTemporaryDir source, folder;
        const QStringList rank0 = cutDumps(source.path(), 0);
        for (int k = 0; k < 2; ++k)
            land(rank0[k], source.path(), folder.path());
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(applyTheme(*qApp, "light"));
        RankOverviewPage *page = window.openFolder(folder.path(), false);
        QVERIFY(page);
        QSignalSpy grid(page, &RankOverviewPage::gridSummarized);
        QTRY_VERIFY_WITH_TIMEOUT(grid.count() > 0, 30000);
        RankStepHeatmap *heatmap = page->heatmap();
        QCOMPARE(heatmap->grid().ranks.size(), size_t(1));
        QCOMPARE(heatmap->grid().steps.size(), size_t(2));
        const auto peakOf = [&](int column) { return heatmap->figures()[heatmap->grid().at(0, size_t(column))->figures].peakActiveBytes; };
        const int low = peakOf(0) < peakOf(1) ? 0 : 1, high = 1 - low;
        const double share = double(peakOf(low)) / double(peakOf(high));
        QVERIFY(share < 0.8);
        const QImage image = heatmap->grab().toImage();
        const QRectF lowCell = heatmap->cellRect(0, low), highCell = heatmap->cellRect(0, high);
        auto at = [&](const QRectF &cell, double fromBottom) {
            return image.pixelColor(QPointF(cell.center().x(), cell.bottom() - 2 - (cell.height() - 4) * fromBottom).toPoint());
        };
        // The highest step's bar fills its cell; the lower one's ends at its share.
        QCOMPARE(at(highCell, 0.95), at(highCell, 0.05));
        QVERIFY(at(lowCell, share / 2).lightness() < at(lowCell, std::min(0.97, share + 0.1)).lightness() - 20);
        saveShot(&window, "rank-step-heatmap-one-rank");
    }

    void stitchedStepsCarryTheirIterations()
    {
        // Rank 0's dumps of the 24-step run, every 5 steps with gaps between (iteration_5 … _24):
        // the stitched run's steps are numbered as the job counted them, the last step begun in
        // each dump being the iteration its folder names, and the Steps page says so.
        QTemporaryDir source;
        const QStringList dumps = cutDumps(source.path(), 0);
        QCOMPARE(dumps.size(), 5);
        const LoadedDocument loaded = loadStitchedRun(source.path().toStdString(), 0, nullptr);
        const auto &steps = loaded.document->devices.at(0).summary.steps;
        QVERIFY(steps.size() >= 5);
        const Snapshot &run = *loaded.document->snapshot;
        QCOMPARE(run.dumpEnds.size(), size_t(5));
        for (const DumpEnd &end : run.dumpEnds) {
            const auto last = std::find_if(steps.rbegin(), steps.rend(), [&](const StepSummary &st) { return st.startUs <= end.timeUs; });
            QVERIFY(last != steps.rend());
            QCOMPARE(last->iteration, std::optional<int64_t>(end.iteration));
        }
        for (size_t i = 1; i < steps.size(); ++i)
            QVERIFY(steps[i].iteration && steps[i - 1].iteration && *steps[i].iteration > *steps[i - 1].iteration);
        QCOMPARE(std::vector<int64_t>({run.dumpEnds.front().iteration, run.dumpEnds.back().iteration}), (std::vector<int64_t>{5, 24}));

        auto view = openView(loaded.document, Page::Steps, {1200, 700});
        StepsView *page = view->steps();
        const StepSummary &highest = highestStep(steps);
        QVERIFY2(page->readout().contains(QString("in iteration %1").arg(*highest.iteration)), qPrintable(page->readout()));
        QCOMPARE(page->plot()->xAxis->label(), QString("Iteration"));
        // Partial steps are hatched, and each jump in the recorded iterations is marked with the
        // iterations it skips, counted here from the steps themselves.
        QCOMPARE(page->partialStepsDrawn(), int(std::count_if(steps.begin(), steps.end(), [&](const StepSummary &st) {
                     return st.partial && st.index != highest.index;
                 })));
        QStringList gaps;
        for (size_t i = 1; i < steps.size(); ++i) {
            const int64_t a = *steps[i - 1].iteration, b = *steps[i].iteration;
            if (b > a + 1)
                gaps << (b == a + 2 ? QString("iteration %1\nnot recorded").arg(a + 1) : QString("iterations %1–%2\nnot recorded").arg(a + 1).arg(b - 1));
        }
        QVERIFY(!gaps.isEmpty());
        QCOMPARE(page->gapLabels(), gaps);
        QVERIFY2(page->readout().contains(QString("%1 gap").arg(gaps.size())), qPrintable(page->readout()));
        saveShot(view.get(), "steps-stitched-iterations");
        // The Summary's Steps row counts the gaps and names the first (it said nothing of them).
        view->showPage(Page::Summary);
        const QString first = gaps.front().section('\n', 0, 0);
        QVERIFY2(view->summaryPage()->factsText().contains(QString("%1 gaps where no dump recorded %2").arg(gaps.size()).arg(first)),
                 qPrintable(view->summaryPage()->factsText()));
    }

    // Another model's after-OOM dump among rank 0's dumps (a folder whose rank holds two runs):
    // the window's stitched run leaves it out and its Summary says so. The window read it as one
    // run: parameters gone, Adam's state "temporary", "checkpointing fits" for a run that died.
    void anotherRunsDumpIsSaidOnTheSummary()
    {
        QTemporaryDir source;
        QCOMPARE(cutDumps(source.path(), 0).size(), 5);
        const QString other = source.filePath("iteration_99/rank0_memory_snapshot.pickle");
        QVERIFY(QDir(source.path()).mkpath("iteration_99"));
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/after_oom_snapshot.pickle", other));
        const LoadedDocument loaded = loadStitchedRun(source.path().toStdString(), 0, nullptr);
        QCOMPARE(loaded.document->snapshot->dumpEnds.size(), size_t(5));
        QVERIFY(loaded.document->devices.at(0).summary.ooms.empty());
        auto view = openView(loaded.document, Page::Summary, {1024, 700});
        const QString facts = view->summaryPage()->factsText();
        QVERIFY2(facts.contains("Stitched") && facts.contains(other + " was left out: a dump of another run"), qPrintable(facts));
    }

    void watchingAnEmptyFolderShowsTheFirstDumps()
    {
        // File ▸ Watch Folder… on a folder the job has not written to yet: the first dump to land
        // is shown at once, its step chosen, without a click; the next rank of that step joins it.
        QTemporaryDir watched;
        MainWindow window;
        window.resize(1400, 900);
        window.show();
        RankOverviewPage *page = window.openFolder(watched.path(), true);
        QVERIFY(page && page->isWatching());
        QTRY_VERIFY(!page->isSummarizing());
        QCOMPARE(page->model()->ranks().size(), size_t(0));
        // Nothing to compare yet: said so, with no imbalance and no empty chart on a "1 B" axis.
        QVERIFY2(page->headline().contains("no dumps yet") && !page->headline().contains("imbalance"), qPrintable(page->headline()));
        QVERIFY(!page->chart()->plot()->isVisible());
        const auto landCopy = [&](const QString &from, const QString &to) {
            QDir().mkpath(QFileInfo(watched.path() + to).path());
            QVERIFY(QFile::copy(from, watched.path() + to + ".tmp"));
            QVERIFY(QFile::rename(watched.path() + to + ".tmp", watched.path() + to));
        };
        landCopy(gpt2(), "/iteration_5/rank0_memory_snapshot.pickle");
        QTRY_COMPARE_WITH_TIMEOUT(page->model()->ranks().size(), size_t(1), 20000);
        QVERIFY2(page->headline().contains("1 rank at step 5"), qPrintable(page->headline()));
        QVERIFY(page->chart()->plot()->isVisible());
        QCOMPARE(page->model()->ranks().front().peakActiveBytes, summarizeRank(RankFile{gpt2().toStdString()}, nullptr).peakActiveBytes);
        landCopy(gpt2(), "/iteration_5/rank1_memory_snapshot.pickle");
        QTRY_COMPARE_WITH_TIMEOUT(page->model()->ranks().size(), size_t(2), 20000);
    }

    void parquetDatasetOpensFromItsSnapshotsTable()
    {
        // A fleet of 6 ranks × 3 dumps (make_fleet.py: rank 1 an outlier, rank 2 an OOM, rank 3 a
        // leak) exported to Parquet: the overview opens the dataset without decoding a dump, its
        // figures are those summarizeRanks finds in the dumps themselves, and a rank's dump opens
        // from it while the dumps are at hand.
        QTemporaryDir work;
        QString error;
        runPythonTool("make_fleet.py", {corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst", work.path() + "/fleet", "--ranks", "6",
                                        "--every", "5", "--window", "3000", "--dumps", "3"},
                      &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString dataset = work.path() + "/dataset";
        const ExportAnswer answer = answerExport({(work.path() + "/fleet").toStdString(), dataset.toStdString()}, nullptr);
        QCOMPARE(answer.failed(), size_t(0));
        QCOMPARE(answer.inputs.size(), size_t(18));

        MainWindow window;
        window.resize(1400, 900);
        window.show();
        RankOverviewPage *page = window.openFolder(dataset);
        QVERIFY(page);
        QVERIFY(!page->isSummarizing());
        QCOMPARE(page->dumpsSummarised(), size_t(0));
        RankStepHeatmap *heatmap = page->heatmap();
        QCOMPARE(heatmap->grid().ranks, (std::vector<int>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(heatmap->grid().steps, (std::vector<std::optional<int64_t>>{5, 10, 15}));
        const RankFolder dumps = findRankFiles((work.path() + "/fleet").toStdString());
        const std::vector<RankFigures> direct = summarizeRanks(dumps.files, 2, nullptr);
        QCOMPARE(heatmap->figures().size(), direct.size());
        for (const RankFigures &want : direct) {
            const auto got = std::find_if(heatmap->figures().begin(), heatmap->figures().end(),
                                          [&](const RankFigures &f) { return f.file.rank == want.file.rank && f.file.step == want.file.step; });
            QVERIFY(got != heatmap->figures().end());
            QCOMPARE(got->peakActiveBytes, want.peakActiveBytes);
            QCOMPARE(got->peakReservedBytes, want.peakReservedBytes);
            QCOMPARE(got->oomEntries, want.oomEntries);
            QCOMPARE(got->categoryBytesAtPeak, want.categoryBytesAtPeak);
            QCOMPARE(QFileInfo(QString::fromStdString(got->file.path)).canonicalFilePath(), QFileInfo(QString::fromStdString(want.file.path)).canonicalFilePath());
        }
        QVERIFY(heatmap->grid().at(2, 2)->oom);
        QVERIFY(heatmap->grid().at(1, 0)->outlier);
        QVERIFY(page->headline().contains("dumps are at hand"));
        // Clicking a cell shows its step and marks the cell itself, not only its row.
        QTest::mouseClick(heatmap, Qt::LeftButton, {}, heatmap->cellRect(1, 1).center().toPoint());
        QCOMPARE(heatmap->currentColumn(), 1);
        QVERIFY(page->headline().contains("at step 10"));
        QVERIFY2(page->headline().contains(" · 1 outlier<"), qPrintable(page->headline())); // it read "1 outliers"
        const QImage marked = heatmap->grab().toImage();
        const QRectF cell = heatmap->cellRect(1, 1);
        QCOMPARE(marked.pixelColor(int(cell.center().x()), int(cell.top()) + 2), heatmap->palette().color(QPalette::Highlight));
        QVERIFY(marked.pixelColor(int(heatmap->cellRect(0, 1).center().x()), int(heatmap->cellRect(0, 1).center().y())) !=
                heatmap->palette().color(QPalette::Highlight)); // another row's cell of that step is not marked
        saveShot(&window, "rank-step-heatmap-parquet");

        // Activating a rank's row opens its dump, the file the dataset was exported from.
        const int tabs = window.tabs()->count();
        page->table()->setFocus();
        page->table()->selectRow(0);
        QTest::keyClick(page->table(), Qt::Key_Return);
        QTRY_COMPARE(window.tabs()->count(), tabs + 1);

        // The dumps moved away: the dataset still opens, and says they are not at hand.
        QVERIFY(QDir().rename(work.path() + "/fleet", work.path() + "/elsewhere"));
        RankOverviewPage *alone = window.openFolder(dataset);
        QVERIFY(alone);
        QCOMPARE(alone->heatmap()->grid().cells.size(), size_t(18));
        QVERIFY(alone->headline().contains("not on this machine"));
    }

    void damagedDatasetIsOneLineAndChangesNothing()
    {
        // A part of the snapshots table cut short: the message names it, and no tab opens.
        QTemporaryDir work;
        const std::string dataset = (work.path() + "/dataset").toStdString();
        const ExportAnswer answer = answerExport({gpt2().toStdString(), dataset}, nullptr);
        QCOMPARE(answer.failed(), size_t(0));
        QDirIterator parts(QString::fromStdString(dataset), {"snapshots.parquet"}, QDir::Files, QDirIterator::Subdirectories);
        QVERIFY(parts.hasNext());
        const QString part = parts.next();
        QFile file(part);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.resize(file.size() / 2));
        file.close();
        MainWindow window;
        window.show();
        const int tabs = window.tabs()->count();
        QVERIFY(!window.openFolder(QString::fromStdString(dataset)));
        QCOMPARE(window.tabs()->count(), tabs);
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = window.findChild<QMessageBox *>()));
        QVERIFY2(box->text().contains(QFileInfo(part).fileName()) && !box->text().contains('\n'), qPrintable(box->text()));
        // Another table in the snapshots part's place: the part lacks a column, said of the file
        // (it said "byte 0", which no byte is to blame for).
        QVERIFY(QFile::remove(part) && QFile::copy(QFileInfo(part).dir().filePath("steps.parquet"), part));
        try {
            readDatasetFigures(dataset);
            QFAIL("a snapshots part without its columns was read");
        } catch (const std::runtime_error &e) {
            const std::string message = e.what();
            QVERIFY2(message.find("no column") != std::string::npos && message.find("byte 0") == std::string::npos, e.what());
        }
    }
};

QTEST_MAIN(TestRankViews)
#include "tst_rankviews.moc"
