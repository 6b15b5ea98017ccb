// Folders of per-rank snapshots built from corpus files (symlinks named as each framework names
// them): ranks found and ordered, steps grouped, each rank's figures equal to its file's own
// summary, the OOM rank marked, FILE.summary.json used only when newer, and two runs on one axis.
#include "CorpusFiles.h"
#include "index/DeviceIndex.h"
#include "views/RunOverlay.h"
#include "figures/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"
#include "ranks/RankSummary.h"
#include "report/SummaryReport.h"
#include "ranks/RankUnits.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <QTemporaryDir>

using namespace memlens;
namespace fs = std::filesystem;

#include <sys/stat.h>

namespace {

std::string gpt2() { return (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString(); }
std::string oom() { return (corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString(); }
std::string streams() { return (corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle").toStdString(); }

void link(const std::string &target, const fs::path &at)
{
    fs::create_directories(at.parent_path());
    fs::create_symlink(target, at);
}

// The file's own figures, as `memlens summary FILE` computes them (the device with the higher peak).
DeviceSummary ownSummary(const std::string &path)
{
    auto snapshot = loadSnapshot(path);
    DeviceSummary best;
    for (int d : snapshot->devices()) {
        DeviceIndex index(*snapshot, d);
        DeviceSummary s = summarizeDevice(*snapshot, index, 0);
        if (s.peakActiveBytes >= best.peakActiveBytes)
            best = s;
    }
    return best;
}

} // namespace

class TestRanks : public QObject {
    Q_OBJECT

private slots:
    // Two ranks 30 % apart: neither is the odd one out (both were outliers, every heatmap cell
    // outlined); a third rank makes the median a rank's own, and the far one stands out.
    void outliersNeedThreeRanks()
    {
        const auto figures = [](std::initializer_list<uint64_t> peaks) {
            std::vector<RankFigures> out;
            int rank = 0;
            for (uint64_t p : peaks) {
                out.emplace_back(RankFile{"r" + std::to_string(rank), rank, true, std::nullopt, false});
                out.back().peakActiveBytes = p;
                ++rank;
            }
            return out;
        };
        QVERIFY(compareRanks(figures({10, 13})).outliers.empty());
        QCOMPARE(compareRanks(figures({10, 13, 10})).outliers, std::vector<size_t>{1});
        QCOMPARE(compareRanks(figures({10, 13})).imbalance, 13.0 / 11.5);
        // Four ranks at one step (issue 56): 3.37, 8.07, 8.07 GiB and 61 MiB. The median (5.72 GiB)
        // is nobody's peak and outlined all four; the two that share the maximum are the typical
        // ones, the other two stand out.
        const uint64_t mib = 1 << 20;
        QCOMPARE(compareRanks(figures({3451 * mib, 8264 * mib, 8264 * mib, 61 * mib})).outliers, (std::vector<size_t>{0, 3}));
        // No peak shared by more ranks than another: nobody is the odd one.
        QVERIFY(compareRanks(figures({10, 10, 20, 20})).outliers.empty());
        QVERIFY(compareRanks(figures({10, 20, 40})).outliers.empty());
        // One straggler among eight.
        QCOMPARE(compareRanks(figures({100, 101, 99, 100, 150, 100, 102, 100})).outliers, std::vector<size_t>{4});
    }

    void namingSchemes_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("rank");
        QTest::addColumn<qlonglong>("step"); // -1: none
        QTest::addColumn<bool>("atExit");
        QTest::newRow("torchtitan before 2026-05") << "memory_snapshot/iteration_30/rank7_memory_snapshot.pickle" << 7 << 30LL << false;
        QTest::newRow("torchtitan OOM exit") << "memory_snapshot/iteration_31_exit/rank2_memory_snapshot.pickle" << 2 << 31LL << true;
        QTest::newRow("torchtitan since 2026-05") << "profiling/memory_snapshot/step_000000000040/000012_step_40.pickle" << 12 << 40LL << false;
        QTest::newRow("torchtitan since, exit") << "profiling/memory_snapshot/step_000000000041_exit/000003_step_41.pickle" << 3 << 41LL << true;
        QTest::newRow("Megatron-LM OOM observer") << "oom_rank-5_gpt.pickle" << 5 << -1LL << false;
        QTest::newRow("Megatron-Bridge") << "memory_trace_11.pickle" << 11 << -1LL << false;
        QTest::newRow("MindSpeed") << "snapshot_2026-03-04-10-30_6.pickle" << 6 << -1LL << false;
        QTest::newRow("Composer") << "rank4.120.pt.trace.memory_snapshot.pickle" << 4 << 120LL << false;
        QTest::newRow("generic rank-") << "run/rank-9.pkl" << 9 << -1LL << false;
        QTest::newRow("generic _R.") << "dump_13.pickle.zst" << 13 << -1LL << false;
    }
    void namingSchemes()
    {
        QFETCH(QString, path);
        QFETCH(int, rank);
        QFETCH(qlonglong, step);
        QFETCH(bool, atExit);
        QVERIFY(isSnapshotFileName(fs::path(path.toStdString()).filename().string()));
        const RankNaming n = parseRankPath(path.toStdString());
        QVERIFY(n.rank.has_value());
        QCOMPARE(*n.rank, rank);
        QCOMPARE(n.step.has_value(), step >= 0);
        if (step >= 0)
            QCOMPARE(*n.step, step);
        QCOMPARE(n.atExit, atExit);
    }

    // torchtitan's old layout, two iterations, the later one written at an OOM exit: the latest
    // step is the default, ranks come in order, each rank's figures are its file's own, the OOM
    // rank is marked and one or two threads give the same figures.
    void folderByStep()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        const std::vector<std::string> step10 = {gpt2(), streams(), gpt2()};
        const std::vector<std::string> step11 = {gpt2(), oom(), streams()};
        for (size_t r = 0; r < 3; ++r) {
            link(step10[r], root / "memory_snapshot/iteration_10" / ("rank" + std::to_string(r) + "_memory_snapshot.pickle"));
            link(step11[r], root / "memory_snapshot/iteration_11_exit" / ("rank" + std::to_string(r) + "_memory_snapshot.pickle"));
        }
        fs::create_directories(root / "logs");
        std::ofstream(root / "logs/train.log") << "not a snapshot\n";
        const RankFolder folder = findRankFiles(root.string());
        QCOMPARE(folder.files.size(), size_t(6));
        QCOMPARE(folder.steps.size(), size_t(2));
        QCOMPARE(*folder.latestStep(), int64_t(11));
        QVERIFY(folder.notes.empty());
        const auto files = folder.filesOfStep(folder.latestStep());
        QCOMPARE(files.size(), size_t(3));
        for (size_t r = 0; r < 3; ++r) {
            QCOMPARE(files[r].rank, int(r));
            QVERIFY(files[r].atExit);
        }
        const auto one = summarizeRanks(files, 1, nullptr), two = summarizeRanks(files, 2, nullptr);
        for (size_t r = 0; r < 3; ++r) {
            const DeviceSummary own = ownSummary(step11[r]);
            QVERIFY2(one[r].error.empty(), one[r].error.c_str());
            QCOMPARE(one[r].peakActiveBytes, own.peakActiveBytes);
            QCOMPARE(one[r].peakReservedBytes, own.peakReservedBytes);
            QCOMPARE(one[r].oomEntries, own.ooms.size());
            QVERIFY(one[r].categoryBytesAtPeak == own.categoryBytesAtPeak);
            QCOMPARE(two[r].peakActiveBytes, one[r].peakActiveBytes);
            QCOMPARE(two[r].categoryBytesAtPeak, one[r].categoryBytesAtPeak);
        }
        const RankComparison c = compareRanks(one);
        QCOMPARE(c.oomRanks, std::vector<size_t>{1});
        std::vector<uint64_t> peaks = {one[0].peakActiveBytes, one[1].peakActiveBytes, one[2].peakActiveBytes};
        std::sort(peaks.begin(), peaks.end());
        QCOMPARE(c.imbalance, double(peaks[2]) / double(peaks[1]));
        const auto j = nlohmann::json::parse(rankOverviewJson(folder, folder.latestStep(), one));
        QCOMPARE(j["ranks"].size(), size_t(3));
        QCOMPARE(j["ranks"][1]["oom_entries"].get<int>(), 1);
        QCOMPARE(j["ranks"][1]["file"].get<std::string>(), files[1].path);
        QCOMPARE(j["step"].get<int>(), 11);
        QCOMPARE(j["rank_source"].get<std::string>(), std::string("file names"));
    }

    // The world size beside a rank's snapshot (advise's GPU count): the ranks of its own step
    // in its own folder; none for a file whose name has no rank or that stands alone.
    // A step folder that is a link (storage laid out by symlinks) is read, once, and a link back up
    // the tree is no loop; a dump's name on a FIFO or on a link to nothing is said in the notes
    // (all three were skipped without a word).
    void linkedStepFoldersAndOddFiles()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        link(gpt2(), root / "run/iteration_1/rank0_memory_snapshot.pickle");
        link(gpt2(), root / "elsewhere/iteration_2/rank0_memory_snapshot.pickle");
        fs::create_symlink(root / "elsewhere/iteration_2", root / "run/iteration_2");
        fs::create_symlink("..", root / "run/iteration_1/up");
        QCOMPARE(::mkfifo((root / "run/iteration_1/rank1_memory_snapshot.pickle").c_str(), 0600), 0);
        fs::create_symlink(root / "missing.pickle", root / "run/iteration_1/rank2_memory_snapshot.pickle");
        const RankFolder folder = findRankFiles((root / "run").string());
        QCOMPARE(folder.files.size(), size_t(2));
        QCOMPARE(folder.steps, (std::vector<std::optional<int64_t>>{1, 2}));
        const std::string notes = [&] {
            std::string all;
            for (const std::string &n : folder.notes)
                all += n + "\n";
            return all;
        }();
        QVERIFY2(notes.find("rank1_memory_snapshot.pickle: not a regular file") != std::string::npos, notes.c_str());
        QVERIFY2(notes.find("rank2_memory_snapshot.pickle: a link to nothing") != std::string::npos, notes.c_str());
        QVERIFY2(notes.find("up: a folder already read") != std::string::npos, notes.c_str());
    }

    void worldSizeBesideASnapshot()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        for (int r = 0; r < 4; ++r)
            link(gpt2(), root / "iteration_10" / ("rank" + std::to_string(r) + "_memory_snapshot.pickle"));
        link(gpt2(), root / "iteration_20" / "rank0_memory_snapshot.pickle");
        link(gpt2(), root / "iteration_10" / "notes.pickle");
        const auto four = worldSizeBeside((root / "iteration_10" / "rank2_memory_snapshot.pickle").string());
        QVERIFY(four);
        QCOMPARE(four->ranks, 4);
        QVERIFY(!worldSizeBeside((root / "iteration_20" / "rank0_memory_snapshot.pickle").string()));
        QVERIFY(!worldSizeBeside((root / "iteration_10" / "notes.pickle").string()));
    }

    // Names without ranks: file order, and the overview says so.
    void fileOrderWhenNamesSayNothing()
    {
        QTemporaryDir dir;
        const fs::path root = dir.path().toStdString();
        link(gpt2(), root / "b.pickle");
        link(streams(), root / "a.pickle");
        const RankFolder folder = findRankFiles(root.string());
        QCOMPARE(folder.files.size(), size_t(2));
        QCOMPARE(fs::path(folder.files[0].path).filename().string(), std::string("a.pickle"));
        QCOMPARE(folder.files[1].rank, 1);
        QVERIFY(!folder.files[0].rankFromName);
        QCOMPARE(folder.notes.size(), size_t(1));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, findRankFiles((root / "missing").string()));
    }

    // A FILE.summary.json is used when newer than its snapshot and naming it; an older, foreign
    // or damaged one is ignored and the snapshot read.
    void summaryFileNextToSnapshot()
    {
        QTemporaryDir dir;
        const fs::path snapshotPath = fs::path(dir.path().toStdString()) / "rank0_memory_snapshot.pickle";
        fs::copy_file(gpt2(), snapshotPath);
        auto snapshot = loadSnapshot(snapshotPath.string());
        DeviceIndex index(*snapshot, 0);
        DeviceSummary s = summarizeDevice(*snapshot, index, 3);
        const uint64_t truePeak = s.peakActiveBytes;
        s.peakActiveBytes = 12345; // marks figures that came from the summary file
        const std::string json = summaryJson(*snapshot, snapshotPath.string(), {{s, std::nullopt}});
        const std::string summaryPath = snapshotPath.string() + ".summary.json";
        std::ofstream(summaryPath) << json;
        const RankFile file{snapshotPath.string(), 0, true, std::nullopt, false};
        fs::last_write_time(summaryPath, fs::last_write_time(snapshotPath) + std::chrono::seconds(5));
        RankFigures f = summarizeRank(file, nullptr);
        QVERIFY(f.fromSummaryFile);
        QCOMPARE(f.peakActiveBytes, uint64_t(12345));
        fs::last_write_time(summaryPath, fs::last_write_time(snapshotPath) - std::chrono::seconds(5));
        f = summarizeRank(file, nullptr);
        QVERIFY(!f.fromSummaryFile);
        QCOMPARE(f.peakActiveBytes, truePeak);
        for (const std::string &bad : {json.substr(0, json.size() / 2), std::string("[]"),
                                       std::string("{\"file\": \"other.pickle\", \"devices\": []}")}) {
            std::ofstream(summaryPath, std::ios::trunc) << bad;
            fs::last_write_time(summaryPath, fs::last_write_time(snapshotPath) + std::chrono::seconds(5));
            f = summarizeRank(file, nullptr);
            QVERIFY(!f.fromSummaryFile);
            QCOMPARE(f.peakActiveBytes, truePeak);
        }
    }

    // A sharded job's units side by side: each rank's column is what its own file's summary puts
    // in each unit at its peak, read from the snapshot or from a FILE.summary.json beside it;
    // a rank of another size shows its own bytes in its column.
    void unitsSideBySide()
    {
        QTemporaryDir dir;
        const fs::path root(dir.path().toStdString());
        QString error;
        runPythonTool("make_fsdp2_run.py", {"--layers", "6", "--ranks", QString::fromStdString((root / "job").string()), QString::fromStdString((root / "a.pickle").string())}, &error);
        runPythonTool("make_fsdp2_run.py", {"--layers", "6", "--tokens", "4096", QString::fromStdString((root / "b.pickle").string())}, &error);
        const fs::path folder = root / "job" / "iteration_1";
        QVERIFY2(fs::exists(folder / "rank2_memory_snapshot.pickle") && fs::exists(root / "b.pickle"), qPrintable(error));
        fs::copy_file(root / "b.pickle", folder / "rank2_memory_snapshot.pickle", fs::copy_options::overwrite_existing);
        // Rank 1 through its summary file, written as `memlens summary FILE --json` writes it.
        const std::string rank1 = (folder / "rank1_memory_snapshot.pickle").string();
        {
            auto snapshot = loadSnapshot(rank1);
            DeviceIndex index(*snapshot, 0);
            std::ofstream(rank1 + ".summary.json") << summaryJson(*snapshot, rank1, {{summarizeDevice(*snapshot, index, 3), std::nullopt}});
            fs::last_write_time(rank1 + ".summary.json", fs::last_write_time(rank1) + std::chrono::seconds(5));
        }
        const RankFolder ranks = findRankFiles(folder.string());
        const std::vector<RankFigures> figures = summarizeRanks(ranks.files, 2, nullptr);
        QCOMPARE(figures.size(), size_t(4));
        QVERIFY(figures[1].fromSummaryFile);
        const std::vector<RankUnitRow> rows = unitsAcrossRanks(figures);
        QVERIFY(!rows.empty());
        for (size_t r = 0; r < figures.size(); ++r) {
            const DeviceSummary own = ownSummary(figures[r].file.path);
            QVERIFY(own.units);
            QCOMPARE(figures[r].unitsFrom, UnitSource::FsdpMarks);
            QCOMPARE(own.unitsAtPeak.size(), size_t(std::count_if(rows.begin(), rows.end(), [&](const RankUnitRow &row) { return row.bytes[r] > 0; })));
            for (const UnitBytes &u : own.unitsAtPeak) {
                const auto row = std::find_if(rows.begin(), rows.end(), [&](const RankUnitRow &row) {
                    return row.unit == u.unit && (!u.unit.empty() || row.beforeTrace == u.beforeTrace);
                });
                QVERIFY2(row != rows.end(), u.unit.c_str());
                QCOMPARE(row->bytes[r], u.bytes);
            }
        }
        QVERIFY(rows[0].bytes[2] != rows[0].bytes[0]); // the rank of another size
        // Units by what they hold at most, then what no unit made.
        for (size_t i = 1; i < rows.size(); ++i)
            QVERIFY(rows[i - 1].unit.empty() <= rows[i].unit.empty() && (rows[i].unit.empty() || rows[i - 1].most() >= rows[i].most()));
        const std::string text = rankOverviewText(ranks, std::nullopt, figures);
        QVERIFY2(text.find("By unit at each rank's peak (FSDP's marks):") != std::string::npos, text.c_str());
        QVERIFY2(text.find("rank 3") != std::string::npos && text.find("(outside every unit)") != std::string::npos, text.c_str());
        std::ostringstream narrow;
        writeUnitsAcrossRanks(narrow, figures, 3, 2);
        QVERIFY2(narrow.str().find("least") != std::string::npos && narrow.str().find("more units") != std::string::npos, narrow.str().c_str());
        const nlohmann::json json = rankOverviewJsonObject(ranks, std::nullopt, figures);
        QCOMPARE(json["ranks"][2]["modules_at_peak"].size(), ownSummary(figures[2].file.path).unitsAtPeak.size());
    }

    // An unreadable rank is reported, not fatal.
    void unreadableRank()
    {
        QTemporaryDir dir;
        const fs::path bad = fs::path(dir.path().toStdString()) / "rank3.pickle";
        std::ofstream(bad) << "garbage";
        const auto ranks = summarizeRanks({RankFile{bad.string(), 3, true, std::nullopt, false}}, 2, nullptr);
        QCOMPARE(ranks.size(), size_t(1));
        QVERIFY(!ranks[0].error.empty());
        QVERIFY(ranks[0].error.find("rank3.pickle") != std::string::npos);
        QCOMPARE(compareRanks(ranks).imbalance, 0.0);
    }

    // A run over itself: identical columns; by event, the highest column is the run's peak.
    // Aligned by step, a 3-step run over a 24-step one covers the first 3 of 24 units.
    void overlay()
    {
        auto a = loadSnapshot(gpt2());
        DeviceIndex ia(*a, 0);
        const DeviceSummary sa = summarizeDevice(*a, ia, 0);
        const RunOverlay self = overlayRuns({&ia, &sa.steps}, {&ia, &sa.steps}, OverlayAlignment::Event, 500);
        QCOMPARE(self.alignment, OverlayAlignment::Event);
        QVERIFY(self.a.active == self.b.active);
        uint64_t top = 0;
        for (const auto &v : self.a.active)
            top = std::max(top, v.value_or(0));
        QCOMPARE(top, sa.peakActiveBytes);
        auto b = loadSnapshot((corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst").toStdString());
        DeviceIndex ib(*b, 0);
        const DeviceSummary sb = summarizeDevice(*b, ib, 0);
        QCOMPARE(sa.steps.size(), size_t(3));
        QVERIFY(sb.steps.size() > 3);
        const RunOverlay bySteps = overlayRuns({&ia, &sa.steps}, {&ib, &sb.steps}, OverlayAlignment::Step, 480);
        QCOMPARE(bySteps.xMax, double(sb.steps.size()));
        const size_t covered = 480 * 3 / sb.steps.size();
        QVERIFY(bySteps.a.active[covered - 1].has_value());
        QVERIFY(!bySteps.a.active[covered + 1].has_value());
        QVERIFY(bySteps.b.active.back().has_value());
        const std::vector<StepSummary> none;
        QCOMPARE(overlayRuns({&ia, &none}, {&ib, &sb.steps}, OverlayAlignment::Step, 10).alignment, OverlayAlignment::Event);

        // By time, the lines are continuous: from each run's first sample to its last, no
        // column is empty (events come in bursts; the quiet columns between them used to be
        // gaps, drawn as dashes), and the shorter run ends where its time does.
        const RunOverlay byTime = overlayRuns({&ia, &sa.steps}, {&ib, &sb.steps}, OverlayAlignment::Time, 1200);
        for (const OverlayRun *run : {&byTime.a, &byTime.b}) {
            const auto first = std::find_if(run->active.begin(), run->active.end(), [](const auto &v) { return v.has_value(); });
            const auto last = std::find_if(run->active.rbegin(), run->active.rend(), [](const auto &v) { return v.has_value(); }).base();
            QVERIFY(first < last);
            QVERIFY(std::all_of(first, last, [](const auto &v) { return v.has_value(); }));
        }
        const double spanA = double(ia.events().timeUs[ia.eventCount() - 1] - ia.events().timeUs[0]) / 1e6;
        const size_t lastA = size_t(std::find_if(byTime.a.active.rbegin(), byTime.a.active.rend(), [](const auto &v) { return v.has_value(); }).base() -
                                    byTime.a.active.begin());
        QVERIFY(std::abs(double(lastA) / 1200 * byTime.xMax - spanA) <= byTime.xMax / 1200 * 2);
    }
};

QTEST_GUILESS_MAIN(TestRanks)
#include "tst_ranks.moc"
