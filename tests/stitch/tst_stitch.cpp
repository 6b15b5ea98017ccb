// Stitching a rank's dumps into one run, and steps in dumps that open mid-step. Complete corpus
// runs are cut into the dumps a job writes (tests/tools/cut_dumps.py: every K steps, the newest W
// entries, segments and blocks the allocator state at the dump's end by MemoryViz's rule); the
// stitched run must give the complete run's steps and step peaks, and gaps where the cuts left them.
#include "CorpusFiles.h"
#include "index/DeviceIndex.h"
#include "figures/SnapshotSummary.h"
#include "cache/SnapshotCodec.h"
#include "decode/SnapshotLoader.h"
#include "ranks/RankFiles.h"
#include "pipeline/RankStitch.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <sys/stat.h>

using namespace memlens;

namespace {

QString snapshotIn(const QString &run)
{
    const QDir dir(corpusDir() + "/snapshots/" + run);
    return dir.filePath(dir.entryList({"snapshot.pickle*"}).value(0));
}

struct Cut {
    QString file;
    int64_t firstTimeUs = 0, lastTimeUs = 0;
};

// The dumps cut_dumps.py wrote, in step order.
// `marks`: ours (the corpus's), torch (its own only) or none, as users' dumps carry them.
std::vector<Cut> cutDumps(const QString &source, const QString &out, int every, int window, const QString &marks = "ours")
{
    QString error;
    const QByteArray lines = runPythonTool(
        "cut_dumps.py", {source, out, "--every", QString::number(every), "--window", QString::number(window), "--marks", marks}, &error);
    std::vector<Cut> cuts;
    for (const QByteArray &line : lines.split('\n')) {
        if (line.isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        cuts.push_back({o["file"].toString(), o["first_time_us"].toInteger(), o["last_time_us"].toInteger()});
    }
    if (cuts.empty())
        qWarning("%s", qPrintable(error));
    return cuts;
}

DeviceSummary summaryOf(const Snapshot &snapshot)
{
    DeviceIndex index(snapshot, 0);
    return summarizeDevice(snapshot, index, 5);
}

DeviceSummary summaryOfFile(const QString &file)
{
    return summaryOf(*loadSnapshot(file.toStdString()));
}

StitchedRun stitchFolder(const QString &dir)
{
    return stitchRank(findRankFiles(dir.toStdString()), 0, nullptr);
}

size_t entriesOf(const QString &file)
{
    return loadSnapshot(file.toStdString())->traces.at(0).count();
}

// Every whole step of `part` is the complete run's step that starts at the same time, with its
// peak; returns how many whole steps there were.
int checkWholeSteps(const DeviceSummary &part, const DeviceSummary &complete)
{
    std::map<int64_t, const StepSummary *> byStart;
    for (const StepSummary &s : complete.steps)
        byStart[s.startUs] = &s;
    int whole = 0;
    for (const StepSummary &s : part.steps) {
        if (s.partial)
            continue;
        ++whole;
        const auto it = byStart.find(s.startUs);
        if (it == byStart.end()) {
            QTest::qFail(qPrintable(QString("step %1 starts at %2, where no step of the complete run does").arg(s.index).arg(s.startUs)), __FILE__, __LINE__);
            return -1;
        }
        if (s.peakActiveBytes != it->second->peakActiveBytes) {
            QTest::qFail(qPrintable(QString("step %1: peak %2, the complete run's %3").arg(s.index).arg(s.peakActiveBytes).arg(it->second->peakActiveBytes)),
                         __FILE__, __LINE__);
            return -1;
        }
    }
    return whole;
}

void checkSameSteps(const DeviceSummary &stitched, const DeviceSummary &complete)
{
    QCOMPARE(stitched.steps.size(), complete.steps.size());
    for (size_t k = 0; k < complete.steps.size(); ++k) {
        const StepSummary &a = stitched.steps[k], &b = complete.steps[k];
        QCOMPARE(a.startUs, b.startUs);
        QCOMPARE(a.endUs, b.endUs);
        QCOMPARE(a.peakActiveBytes, b.peakActiveBytes);
        QCOMPARE(a.endActiveBytes, b.endActiveBytes);
        QCOMPARE(a.partial, b.partial);
    }
}

// A gap wherever a dump's window starts after the one before it ended.
void checkGaps(const StitchedRun &run, const std::vector<Cut> &cuts)
{
    size_t g = 0;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        if (cuts[k + 1].firstTimeUs <= cuts[k].lastTimeUs)
            continue;
        QVERIFY(g < run.gaps.size());
        QCOMPARE(run.gaps[g].afterFile, cuts[k].file.toStdString());
        QCOMPARE(run.gaps[g].beforeFile, cuts[k + 1].file.toStdString());
        QCOMPARE(run.gaps[g].fromUs, cuts[k].lastTimeUs);
        QCOMPARE(run.gaps[g].toUs, cuts[k + 1].firstTimeUs);
        ++g;
    }
    QCOMPARE(run.gaps.size(), g);
}

// Every step a gap falls in is partial.
void checkCutStepsPartial(const StitchedRun &run, const DeviceSummary &stitched)
{
    for (const StitchGap &g : run.gaps) {
        for (const StepSummary &s : stitched.steps) {
            if (g.fromUs < s.endUs && g.toUs > s.startUs)
                QVERIFY2(s.partial, qPrintable(QString("step %1 holds a gap but is whole").arg(s.index)));
        }
    }
}

} // namespace

class TestStitch : public QObject {
    Q_OBJECT

private slots:
    // Dumps whose windows overlap hold every entry: the stitched run is the complete run.
    void overlappingDumpsGiveTheCompleteRun_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<int>("every");
        QTest::newRow("varying lengths, every 5 of 24 steps") << QString("frag_varlen_gpt2") << 5;
        QTest::newRow("gpt2, every step") << QString("gpt2_fp32_adamw") << 1;
        QTest::newRow("tinyllama, every step") << QString("tinyllama_bf16_ckpt_cpp_stacks") << 1;
    }
    void overlappingDumpsGiveTheCompleteRun()
    {
        QFETCH(QString, run);
        QFETCH(int, every);
        QTemporaryDir dir;
        const QString source = snapshotIn(run);
        const int window = int(double(entriesOf(source)) * 0.6);
        const std::vector<Cut> cuts = cutDumps(source, dir.path(), every, window);
        QVERIFY(cuts.size() >= 2);
        QVERIFY(cuts.back().firstTimeUs > cuts.front().firstTimeUs); // the last dump lost the run's start
        const StitchedRun stitchedRun = stitchFolder(dir.path());
        QCOMPARE(stitchedRun.dumps.size(), cuts.size());
        QVERIFY(stitchedRun.gaps.empty());
        QVERIFY(stitchedRun.warnings.empty());
        const DeviceSummary stitched = summaryOf(*stitchedRun.snapshot);
        const DeviceSummary complete = summaryOfFile(source);
        QCOMPARE(stitched.entries, complete.entries);
        QCOMPARE(stitched.peakActiveBytes, complete.peakActiveBytes);
        QCOMPARE(stitched.peakReservedBytes, complete.peakReservedBytes);
        checkSameSteps(stitched, complete);
        QCOMPARE(stitched.leakSuspects.size(), complete.leakSuspects.size());
        QVERIFY(stitched.warnings.empty());
    }

    // A FIFO and a link to nothing named as the rank's dumps are left out and said so in the
    // stitched run's warnings, as `summary DIR` says them (they were dropped in silence).
    void unreadableNamesAreSaid()
    {
        QTemporaryDir dir;
        const std::vector<Cut> cuts = cutDumps(snapshotIn("gpt2_fp32_adamw"), dir.path(), 1, 100000);
        QVERIFY(cuts.size() >= 2);
        QVERIFY(QDir(dir.path()).mkpath("iteration_98") && QDir(dir.path()).mkpath("iteration_99"));
        QVERIFY(::mkfifo(dir.filePath("iteration_98/rank0_memory_snapshot.pickle").toLocal8Bit().constData(), 0600) == 0);
        QVERIFY(QFile::link(dir.filePath("nowhere.pickle"), dir.filePath("iteration_99/rank0_memory_snapshot.pickle")));
        const StitchedRun run = stitchFolder(dir.path());
        QCOMPARE(run.dumps.size(), cuts.size());
        const std::string said = [&] {
            std::string all;
            for (const std::string &w : run.warnings)
                all += w + "\n";
            return all;
        }();
        QVERIFY2(said.find("iteration_98/rank0_memory_snapshot.pickle: not a regular file") != std::string::npos, said.c_str());
        QVERIFY2(said.find("iteration_99/rank0_memory_snapshot.pickle: a link to nothing") != std::string::npos, said.c_str());
    }

    // Dumps further apart than their windows: a gap between each two, where the cuts are; the
    // steps found whole have the complete run's peaks, the steps a gap cuts are partial. With our
    // marks, torch's only or none (users' dumps): a window that opens in a step's backward holds
    // that step's tail, which is never a whole step.
    void gappedDumps_data()
    {
        QTest::addColumn<QString>("marks");
        for (const char *marks : {"ours", "torch", "none"})
            QTest::newRow(marks) << QString(marks);
    }
    void gappedDumps()
    {
        QFETCH(QString, marks);
        QTemporaryDir dir;
        QString source = snapshotIn("frag_varlen_gpt2");
        if (marks != "ours") {
            const QString complete = dir.filePath("complete.pickle");
            QString error;
            runPythonTool("make_user_variants.py", {source, complete, "--marks", marks}, &error);
            QVERIFY2(QFile::exists(complete), qPrintable(error));
            source = complete;
        }
        const std::vector<Cut> cuts = cutDumps(snapshotIn("frag_varlen_gpt2"), dir.filePath("dumps"), 5, 6000, marks);
        QCOMPARE(cuts.size(), size_t(5));
        const StitchedRun run = stitchFolder(dir.filePath("dumps"));
        QCOMPARE(run.gaps.size(), size_t(4));
        checkGaps(run, cuts);
        QCOMPARE(run.snapshot->gaps.size(), size_t(4));
        QVERIFY(*decodeSnapshot(encodeSnapshot(*run.snapshot)) == *run.snapshot); // the cache keeps the gaps
        const DeviceSummary stitched = summaryOf(*run.snapshot);
        QVERIFY(stitched.warnings.empty());
        checkCutStepsPartial(run, stitched);
        const int whole = checkWholeSteps(stitched, summaryOfFile(source));
        QVERIFY(whole >= 3);
        QVERIFY(size_t(whole) < stitched.steps.size());
    }

    // Users' periodic dumps carry torch's marks only, or none: stitched, they are numbered with
    // the same iterations and peaks as the same dumps with our marks, gaps and all.
    void usersDumpsKeepTheirIterations_data()
    {
        QTest::addColumn<QString>("marks");
        QTest::addColumn<int>("window");
        QTest::newRow("torch's marks, overlapping") << QString("torch") << 50000;
        QTest::newRow("no marks, overlapping") << QString("none") << 50000;
        QTest::newRow("no marks, gaps") << QString("none") << 6000;
    }
    void usersDumpsKeepTheirIterations()
    {
        QFETCH(QString, marks);
        QFETCH(int, window);
        QTemporaryDir ours, users;
        const QString source = snapshotIn("frag_varlen_gpt2");
        QCOMPARE(cutDumps(source, ours.path(), 5, window).size(), size_t(5));
        QCOMPARE(cutDumps(source, users.path(), 5, window, marks).size(), size_t(5));
        const DeviceSummary marked = summaryOf(*stitchFolder(ours.path()).snapshot);
        const DeviceSummary stitched = summaryOf(*stitchFolder(users.path()).snapshot);
        QCOMPARE(stitched.stepsFrom, marks == "torch" ? StepSource::OptimizerMarks : StepSource::OptimizerFrames);
        std::map<int64_t, const StepSummary *> byIteration;
        for (const StepSummary &s : marked.steps) {
            if (!s.partial)
                byIteration[s.iteration.value_or(-1)] = &s;
        }
        size_t matched = 0;
        for (const StepSummary &s : stitched.steps) {
            const auto it = byIteration.find(s.iteration.value_or(-1));
            if (s.partial || it == byIteration.end())
                continue;
            QCOMPARE(s.peakActiveBytes, it->second->peakActiveBytes);
            ++matched;
        }
        QVERIFY2(matched + 1 >= byIteration.size(), qPrintable(QString("%1 of %2 whole iterations").arg(matched).arg(byIteration.size())));
        QCOMPARE(stitched.steps.back().iteration, marked.steps.back().iteration);
    }

    // A ring-buffered dump on its own opens mid-step: its steps still open at `forward` (where
    // active memory is lowest), so they are the complete run's steps, and the cut one is partial.
    // A dump that holds fewer than two of the run's whole steps has none (one cycle is no loop).
    void dumpOpeningMidStep()
    {
        QTemporaryDir dir;
        const QString source = snapshotIn("frag_varlen_gpt2");
        const std::vector<Cut> cuts = cutDumps(source, dir.path(), 5, 6000);
        const DeviceSummary complete = summaryOfFile(source);
        int openedMidStep = 0, withSteps = 0;
        for (const Cut &cut : cuts) {
            auto snapshot = loadSnapshot(cut.file.toStdString());
            std::vector<PhaseRange> phases = phaseRanges(*snapshot, 0);
            QVERIFY(!phases.empty());
            openedMidStep += phases.front().name != "forward" || !phases.front().startUs;
            const DeviceSummary part = summaryOf(*snapshot);
            // Dumps are cut where a step ends, so every step that starts in the window is whole in it.
            const auto inside = std::count_if(complete.steps.begin(), complete.steps.end(), [&](const StepSummary &s) {
                return !s.partial && s.startUs >= cut.firstTimeUs && s.startUs <= cut.lastTimeUs;
            });
            if (inside < 2) {
                QVERIFY2(part.steps.empty(), qPrintable(cut.file));
                continue;
            }
            ++withSteps;
            QVERIFY(!part.steps.empty());
            QVERIFY2(part.steps.front().partial, qPrintable(cut.file));
            QVERIFY(checkWholeSteps(part, complete) >= 1);
        }
        QVERIFY(openedMidStep >= 3); // the case the rule is for, not only dumps that open at `forward`
        QVERIFY(withSteps >= 3);
    }

    // A long run the tests have not seen before (generated here, 400 steps), cut every 50 steps.
    void longRun()
    {
        QTemporaryDir dir;
        const QString run = dir.filePath("long.pickle");
        QString error;
        runPythonTool("make_long_run.py", {snapshotIn("frag_varlen_gpt2"), run, "--steps", "400"}, &error);
        QVERIFY2(QFile::exists(run), qPrintable(error));
        const DeviceSummary complete = summaryOfFile(run);
        QVERIFY(complete.steps.size() >= 400);

        const std::vector<Cut> overlapping = cutDumps(run, dir.filePath("overlapping"), 50, 300000);
        const StitchedRun whole = stitchFolder(dir.filePath("overlapping"));
        QVERIFY(whole.gaps.empty());
        checkSameSteps(summaryOf(*whole.snapshot), complete);

        const std::vector<Cut> gapped = cutDumps(run, dir.filePath("gapped"), 50, 60000);
        QCOMPARE(gapped.size(), size_t(9)); // after 50, 100, … 400 steps, and at the end (402)
        const StitchedRun cut = stitchFolder(dir.filePath("gapped"));
        QCOMPARE(cut.gaps.size(), size_t(7)); // the last two dumps, two steps apart, overlap
        checkGaps(cut, gapped);
        const DeviceSummary stitched = summaryOf(*cut.snapshot);
        checkCutStepsPartial(cut, stitched);
        QVERIFY(checkWholeSteps(stitched, complete) > 100);
    }

    // Two dumps of one step, the second with a longer window whose older entries reach into the
    // gap before the step: named so that it sorts after the shorter one, it was left out with a
    // false "shares no entries" warning. Now the longer goes first, fills the gap, and the
    // shorter one's entries are all shared.
    void longerWindowOfTheSameStepFillsTheGap()
    {
        QTemporaryDir dir, longer;
        const QString source = snapshotIn("frag_varlen_gpt2");
        const std::vector<Cut> cuts = cutDumps(source, dir.path(), 5, 6000);
        const size_t gapsBefore = stitchFolder(dir.path()).gaps.size();
        QVERIFY(gapsBefore >= 2);
        QVERIFY(!cutDumps(source, longer.path(), 5, 16000).empty());
        QVERIFY(QFile::copy(longer.filePath("iteration_10/rank0_memory_snapshot.pickle"), dir.filePath("iteration_10/rank0_memory_snapshot.v2.pickle")));
        const StitchedRun run = stitchFolder(dir.path());
        QVERIFY2(run.warnings.empty(), run.warnings.empty() ? "" : run.warnings.front().c_str());
        QCOMPARE(run.gaps.size(), gapsBefore - 1);
        QCOMPARE(run.dumps.size(), cuts.size() + 1);
        const auto shorter = std::find_if(run.dumps.begin(), run.dumps.end(), [](const StitchedDump &d) {
            return d.file.ends_with("iteration_10/rank0_memory_snapshot.pickle");
        });
        QVERIFY(shorter != run.dumps.end() && shorter->newEntries == 0);
        QVERIFY(summaryOf(*run.snapshot).warnings.empty());
    }

    // A dump of another run among a rank's dumps, wherever its step puts it: first and earlier in
    // time (an earlier job's file), first and later in time (a LoRA-Llama run's iteration_4 before
    // a GPT-2 run's iteration_50 and _100), last (a GPT-2 medium after-OOM dump behind two GPT-2
    // small ones). It is left out, said so, and the rank's own dumps are the run, as stitched
    // without it. It was stitched in, at most with a "another run?" warning: parameters gone,
    // Adam's state "temporary", iterations 2, 3, 4, 1, 2, 3.
    void anotherRunsDumpIsLeftOut_data()
    {
        QTest::addColumn<QString>("other");
        QTest::addColumn<int>("otherEvery");
        QTest::addColumn<QString>("own");
        QTest::addColumn<QString>("otherStep");
        QTest::newRow("first, earlier in time") << "gpt2_fp32_adamw" << 1 << "frag_varlen_gpt2" << "iteration_4";
        QTest::newRow("first, later in time") << "tinyllama_bf16_ckpt_cpp_stacks" << 1 << "frag_varlen_gpt2" << "iteration_4";
        QTest::newRow("last, another model's OOM") << "oom_gpt2_medium_6gib" << 0 << "gpt2_fp32_adamw" << "iteration_99";
    }

    void anotherRunsDumpIsLeftOut()
    {
        QFETCH(QString, other);
        QFETCH(int, otherEvery);
        QFETCH(QString, own);
        QFETCH(QString, otherStep);
        QTemporaryDir ownDumps, otherDumps;
        const std::vector<Cut> cuts = cutDumps(snapshotIn(own), ownDumps.path(), own == "gpt2_fp32_adamw" ? 1 : 5, 6000);
        QVERIFY(cuts.size() >= 2);
        const StitchedRun alone = stitchFolder(ownDumps.path());
        const QString otherFile = ownDumps.filePath(otherStep + "/rank0_memory_snapshot.pickle");
        QVERIFY(QDir(ownDumps.path()).mkpath(otherStep));
        if (otherEvery == 0) {
            QVERIFY(QFile::copy(QDir(corpusDir() + "/snapshots/" + other).filePath("after_oom_snapshot.pickle"), otherFile));
        } else {
            QVERIFY(!cutDumps(snapshotIn(other), otherDumps.path(), otherEvery, 1 << 30).empty());
            QVERIFY(QFile::copy(otherDumps.filePath("iteration_2/rank0_memory_snapshot.pickle"), otherFile));
        }
        const StitchedRun run = stitchFolder(ownDumps.path());
        QCOMPARE(run.dumps.size(), alone.dumps.size());
        QCOMPARE(run.leftOut.size(), size_t(1));
        QCOMPARE(QString::fromStdString(run.leftOut.front().file), otherFile);
        QCOMPARE(run.snapshot->traces[0].count(), alone.snapshot->traces[0].count());
        QCOMPARE(run.gaps.size(), alone.gaps.size());
        QCOMPARE(run.warnings.size(), alone.warnings.size() + 1);
        QVERIFY2(run.warnings.back().find(otherFile.toStdString() + " was left out: a dump of another run") != std::string::npos, run.warnings.back().c_str());
        const DeviceSummary with = summaryOf(*run.snapshot), without = summaryOf(*alone.snapshot);
        QCOMPARE(with.peakActiveBytes, without.peakActiveBytes);
        QCOMPARE(with.steps.size(), without.steps.size());
        for (size_t i = 0; i < with.steps.size(); ++i)
            QCOMPARE(with.steps[i].iteration, without.steps[i].iteration);
    }

    // Two dumps of one run copied out of order (iteration_5 holds what step 10 wrote, and the
    // reverse): one run all the same, its entries, gaps and step peaks those of the dumps in order;
    // the steps' iterations are not taken from paths that contradict the times, and it says so.
    void sameRunsDumpsOutOfOrder()
    {
        QTemporaryDir dir;
        QVERIFY(cutDumps(snapshotIn("frag_varlen_gpt2"), dir.path(), 5, 6000).size() >= 3);
        const StitchedRun inOrder = stitchFolder(dir.path());
        QDir d(dir.path());
        QVERIFY(d.rename("iteration_5", "swap") && d.rename("iteration_10", "iteration_5") && d.rename("swap", "iteration_10"));
        const StitchedRun run = stitchFolder(dir.path());
        QVERIFY(run.leftOut.empty());
        QCOMPARE(run.dumps.size(), inOrder.dumps.size());
        QCOMPARE(run.snapshot->traces[0].count(), inOrder.snapshot->traces[0].count());
        QCOMPARE(run.gaps.size(), inOrder.gaps.size());
        QCOMPARE(run.warnings.size(), size_t(1));
        QVERIFY2(run.warnings.front().find("do not follow their entries' times") != std::string::npos, run.warnings.front().c_str());
        const DeviceSummary swapped = summaryOf(*run.snapshot), ordered = summaryOf(*inOrder.snapshot);
        QCOMPARE(swapped.steps.size(), ordered.steps.size());
        for (size_t i = 0; i < swapped.steps.size(); ++i) {
            QCOMPARE(swapped.steps[i].peakActiveBytes, ordered.steps[i].peakActiveBytes);
            QVERIFY(!swapped.steps[i].iteration);
        }
        QVERIFY(std::any_of(ordered.steps.begin(), ordered.steps.end(), [](const StepSummary &s) { return s.iteration.has_value(); }));
    }

    // A later run's dump left among this rank's dumps (by its path, between steps 12 and 16) is
    // left out, said so, and the rank's own dumps go on as one run: the same steps, iterations and
    // entries as without it. It was stitched in behind a gap, the real dumps after it were then
    // "older entries left out", and the steps were numbered 1…14.
    void laterRunsDumpAmongTheDumpsIsLeftOut()
    {
        QTemporaryDir own, later;
        QVERIFY(!cutDumps(snapshotIn("frag_varlen_gpt2"), own.path(), 4, 20000).empty());
        const StitchedRun alone = stitchFolder(own.path());
        QVERIFY(!cutDumps(snapshotIn("resnet50_bf16_sgd"), later.path(), 1, 20000).empty());
        QVERIFY(QDir(own.path()).mkpath("iteration_14"));
        QVERIFY(QFile::copy(later.filePath("iteration_2/rank0_memory_snapshot.pickle"), own.filePath("iteration_14/rank0_memory_snapshot.pickle")));
        const StitchedRun run = stitchFolder(own.path());
        QCOMPARE(run.dumps.size(), alone.dumps.size());
        QCOMPARE(run.snapshot->traces[0].count(), alone.snapshot->traces[0].count());
        QCOMPARE(run.gaps.size(), alone.gaps.size());
        const DeviceSummary with = summaryOf(*run.snapshot), without = summaryOf(*alone.snapshot);
        QCOMPARE(with.steps.size(), without.steps.size());
        for (size_t i = 0; i < with.steps.size(); ++i)
            QCOMPARE(with.steps[i].iteration, without.steps[i].iteration);
        QCOMPARE(with.peakActiveBytes, without.peakActiveBytes);
        QCOMPARE(run.warnings.size(), size_t(1));
        QVERIFY2(run.warnings.front().find("iteration_14/rank0_memory_snapshot.pickle was left out") != std::string::npos &&
                     run.warnings.front().find("another run") != std::string::npos,
                 run.warnings.front().c_str());
    }

    // A dump that cannot be read (half written) is left out with a warning naming it.
    void unreadableDumpLeftOut()
    {
        QTemporaryDir dir;
        const std::vector<Cut> cuts = cutDumps(snapshotIn("gpt2_fp32_adamw"), dir.path(), 1, 1 << 30);
        QCOMPARE(cuts.size(), size_t(3));
        QFile broken(cuts[1].file);
        QVERIFY(broken.open(QIODevice::ReadWrite));
        QVERIFY(broken.resize(broken.size() / 2));
        broken.close();
        const StitchedRun run = stitchFolder(dir.path());
        QCOMPARE(run.dumps.size(), size_t(2));
        QCOMPARE(run.warnings.size(), size_t(1));
        QVERIFY(run.warnings.front().find(cuts[1].file.toStdString()) != std::string::npos);
        QVERIFY(run.gaps.empty()); // the windows reach back to the start: nothing was lost
        checkSameSteps(summaryOf(*run.snapshot), summaryOfFile(snapshotIn("gpt2_fp32_adamw")));
    }
};

QTEST_GUILESS_MAIN(TestStitch)
#include "tst_stitch.moc"
