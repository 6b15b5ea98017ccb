// The questions the command line, MCP and the window ask (parsers/questions/), every one called
// as a value without a subprocess: each refusal is one line naming the argument at fault as MCP
// names it and as the command line spells it, and says whether the argument or the file is to
// blame; each answer agrees with what torch measured in the same run or with a count made here
// from the file itself.
#include "CorpusFiles.h"
#include "decode/SnapshotLoader.h"
#include "questions/AdviseQuestion.h"
#include "questions/AllocatorStateQuestion.h"
#include "questions/CommandOptions.h"
#include "questions/DiffQuestion.h"
#include "questions/ExportQuestion.h"
#include "questions/LiveAtQuestion.h"
#include "questions/QuestionError.h"
#include "questions/RankOverviewQuestion.h"
#include "questions/ReplayQuestion.h"
#include "questions/SearchQuestion.h"
#include "questions/StacksQuestion.h"
#include "questions/StepsQuestion.h"
#include "questions/StitchQuestion.h"
#include "questions/SummaryQuestion.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <set>

using namespace memlens;

namespace {

using Loaded = std::shared_ptr<const Snapshot>;
using Ask = std::function<void()>;

Loaded loaded(const QString &path)
{
    return std::shared_ptr<const Snapshot>(loadSnapshot(path.toStdString()));
}

QString corpusFile(const char *relative)
{
    return corpusDir() + "/" + relative;
}

std::string gpt2()
{
    return corpusFile("snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
}

std::string oom()
{
    return corpusFile("snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString();
}

uint64_t truth(const char *run, const char *key)
{
    return uint64_t(readJsonObject(corpusFile(run) + "/truth.json")[key].toInteger());
}

// A folder of ranks: GPT-2's dump as rank 0 and 1.
QString rankFolder(const QTemporaryDir &dir)
{
    for (const char *name : {"rank0.pickle", "rank1.pickle"})
        QFile::copy(QString::fromStdString(gpt2()), dir.filePath(name));
    return dir.path();
}

// The arguments an MCP tool names as operands; every other argument is a command-line option.
bool isOperand(const std::string &argument)
{
    return argument == "path" || argument == "a" || argument == "b";
}

} // namespace

class TestQuestions : public QObject {
    Q_OBJECT

private slots:
    // Every question refuses in one line naming its argument: MCP's name ("device 3: …"), the
    // command line's option ("--device 3: …", or the file for an operand), and the kind: Usage
    // (the argument is wrong) or Input (this file cannot answer).
    void refusalsNameTheArgument_data()
    {
        QTest::addColumn<QString>("question");
        QTest::addColumn<Ask>("ask");
        QTest::addColumn<QString>("argument");
        QTest::addColumn<bool>("input");
        QTest::addColumn<bool>("commandLine"); // false: no command asks it (MCP's search)
        static QTemporaryDir ranks;
        const std::string folder = rankFolder(ranks).toStdString();
        QTest::newRow("summary of a device the file lacks") << "summary" << Ask([] {
            SummaryRequest r;
            r.device = 3;
            answerSummary(gpt2(), loaded(QString::fromStdString(gpt2())), r);
        }) << "device" << false << true;
        QTest::newRow("live at the OOM of a run without one") << "live-at" << Ask([] {
            answerMoment(gpt2(), loaded(QString::fromStdString(gpt2())), {std::nullopt, Moment::oom(), 5});
        }) << "at" << false << true;
        QTest::newRow("allocator state after the last entry") << "allocator-state" << Ask([] {
            answerAllocatorState(gpt2(), loaded(QString::fromStdString(gpt2())), {std::nullopt, Moment::parse("99999999").value(), 1});
        }) << "at" << false << true;
        QTest::newRow("steps of a device the file lacks") << "steps" << Ask([] { answerSteps(gpt2(), loaded(QString::fromStdString(gpt2())), 1); })
                                                          << "device" << false << true;
        QTest::newRow("search for nothing") << "search" << Ask([] {
            answerSearch(gpt2(), loaded(QString::fromStdString(gpt2())), {std::nullopt, "", 10});
        }) << "text" << false << false;
        QTest::newRow("stacks at the OOM of a run without one") << "stacks" << Ask([] {
            StacksRequest r;
            r.at = Moment::oom();
            answerStacks(gpt2(), loaded(QString::fromStdString(gpt2())), r);
        }) << "at" << false << true;
        QTest::newRow("advice on a device the file lacks") << "advise" << Ask([] {
            AdviseRequest r;
            r.device = 2;
            answerAdvise(gpt2(), loaded(QString::fromStdString(gpt2())), r);
        }) << "device" << false << true;
        QTest::newRow("replay of a profiler trace") << "replay" << Ask([] {
            const QString trace = corpusFile("profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz");
            answerReplay(trace.toStdString(), *loaded(trace), ReplayRequest{});
        }) << "path" << true << true;
        QTest::newRow("replay of a fraction of an unnamed device") << "replay" << Ask([] {
            ReplayRequest r;
            r.allocConf = "per_process_memory_fraction:0.5";
            answerReplay(gpt2(), *loaded(QString::fromStdString(gpt2())), r);
        }) << "alloc_conf" << false << true;
        QTest::newRow("replay of a setting that does not parse") << "replay" << Ask([] {
            ReplayRequest r;
            r.allocConf = "max_split_size_mb:huge";
            answerReplay(gpt2(), *loaded(QString::fromStdString(gpt2())), r);
        }) << "alloc_conf" << false << true;
        QTest::newRow("diff on a device neither run has") << "diff" << Ask([] {
            DiffRequest r;
            r.device = 4;
            answerDiff(gpt2(), loaded(QString::fromStdString(gpt2())), oom(), loaded(QString::fromStdString(oom())), r);
        }) << "device" << false << true;
        QTest::newRow("export share 0 of 2") << "export" << Ask([] { parseShard("0/2"); }) << "shard" << false << true;
        QTest::newRow("export of a folder without snapshots") << "export" << Ask([] {
            QTemporaryDir empty, out;
            answerExport({empty.path().toStdString(), out.filePath("ds").toStdString(), 1, 1}, nullptr);
        }) << "path" << true << true;
        QTest::newRow("rank overview of a step no dump has") << "rank-overview" << Ask([folder] {
            answerRankOverview(findRankFiles(folder), {7, 1, {}}, nullptr);
        }) << "step" << false << true;
        QTest::newRow("stitch of a rank the folder lacks") << "stitch" << Ask([folder] {
            StitchRequest r;
            r.rank = 5;
            answerStitch(findRankFiles(folder), r, nullptr);
        }) << "rank" << false << true;
    }
    void refusalsNameTheArgument()
    {
        QFETCH(QString, question);
        QFETCH(Ask, ask);
        QFETCH(QString, argument);
        QFETCH(bool, input);
        QFETCH(bool, commandLine);
        try {
            ask();
            QFAIL("answered");
        } catch (const QuestionError &e) {
            QCOMPARE(QString::fromStdString(e.argument), argument);
            QCOMPARE(e.kind == QuestionError::Kind::Input, input);
            const QString tool = QString::fromStdString(toolText(e)), line = QString::fromStdString(commandLineText(e));
            for (const QString &text : {tool, line})
                QVERIFY2(!text.contains('\n'), qPrintable(text));
            QVERIFY2(tool.startsWith(argument + (e.value ? " " + QString::fromStdString(*e.value) : QString()) + ": "), qPrintable(tool));
            if (commandLine && !isOperand(e.argument))
                QVERIFY2(line.contains(QString::fromStdString(flagOf(e.argument))), qPrintable(line));
            if (isOperand(e.argument)) // the file at fault is named
                QVERIFY2(line.contains('/'), qPrintable(line));
            refused_.insert(question);
        }
    }
    // Each of the twelve questions refused as above (the rows before ran every one).
    void everyQuestionRefuses()
    {
        QCOMPARE(refused_.size(), size_t(12));
    }

    // Every question answered as a value, each against torch's figures for the run or a count
    // made here from the file.
    void answersAgreeWithTorch()
    {
        const char *run = "snapshots/gpt2_fp32_adamw";
        const Loaded snapshot = loaded(QString::fromStdString(gpt2()));
        SummaryRequest one;
        one.oneDevice = true;
        const SummaryAnswer summary = answerSummary(gpt2(), snapshot, one);
        QCOMPARE(summary.reports.size(), size_t(1));
        QCOMPARE(summary.reports[0].summary.peakReservedBytes, truth(run, "peak_reserved"));
        // Requested bytes; torch's max_memory_allocated counts them rounded up to blocks.
        const uint64_t peak = summary.reports[0].summary.peakActiveBytes;
        QVERIFY(peak <= truth(run, "peak_allocated") && peak >= truth(run, "peak_allocated") / 100 * 99);
        const StepsAnswer steps = answerSteps(gpt2(), snapshot, std::nullopt);
        size_t stepMarks = 0; // torch's figures after each step, tagged step0, step1, …
        for (const QJsonValue mark : readJsonObject(corpusFile(run) + "/truth.json")["marks"].toArray())
            stepMarks += mark.toObject()["tag"].toString().startsWith("step");
        QCOMPARE(steps.report.summary.steps.size(), stepMarks);
        const MomentAnswer end = answerAllocatorState(gpt2(), snapshot, {std::nullopt, Moment::end(), 1});
        QCOMPARE(end.report.at->allocator.reserved, truth(run, "end_reserved"));
        StacksRequest atPeak; // the call tree adds up what is live there
        QCOMPARE(answerStacks(gpt2(), snapshot, atPeak).liveBytes, peak);

        const Loaded oomSnapshot = loaded(QString::fromStdString(oom()));
        const MomentAnswer atOom = answerMoment(oom(), oomSnapshot, {std::nullopt, Moment::oom(), 5});
        QCOMPARE(oomSnapshot->traces.at(0).action[atOom.point.lastEntry().index()], Action::Oom);
        const ReplayAnswer replay = answerReplay(oom(), *oomSnapshot, ReplayRequest{});
        QVERIFY(replay.result.predicted.oomAt.has_value());
        QCOMPARE(*replay.result.predicted.oomAt, atOom.point.lastEntry());
        const AdviseAnswer advice = answerAdvise(oom(), oomSnapshot, AdviseRequest{});
        QVERIFY(!advice.nothing && advice.advice.oom && !advice.advice.fixes.empty());
        QCOMPARE(advice.advice.point, atOom.point);
    }

    void searchFindsTheTextLargestFirst()
    {
        const SearchAnswer found = answerSearch(gpt2(), loaded(QString::fromStdString(gpt2())), {std::nullopt, "cross_entropy", 5});
        QVERIFY(found.matches >= found.hits.size() && !found.hits.empty());
        const nlohmann::json j = searchJson(found);
        for (size_t i = 0; i < found.hits.size(); ++i) {
            QVERIFY(i == 0 || found.hits[i - 1].block.size >= found.hits[i].block.size);
            QVERIFY(j["allocations"][i]["frames"].dump().find("cross_entropy") != std::string::npos);
        }
    }

    // A run against itself differs nowhere; two copies of one dump are two ranks with its peak;
    // one dump stitched is that run; the export holds every trace entry of it.
    void foldersAndPairsAgreeWithTheRun()
    {
        const char *run = "snapshots/gpt2_fp32_adamw";
        const Loaded snapshot = loaded(QString::fromStdString(gpt2()));
        const uint64_t peak = answerSteps(gpt2(), snapshot, std::nullopt).report.summary.peakActiveBytes;
        QVERIFY(peak <= truth(run, "peak_allocated") && peak >= truth(run, "peak_allocated") / 100 * 99);
        const DiffAnswer same = answerDiff(gpt2(), snapshot, gpt2(), snapshot, DiffRequest{});
        QVERIFY(same.diff.sites.empty());
        QCOMPARE(same.diff.a.peakActiveBytes, peak);
        QCOMPARE(same.gate.peakGrowth, 0.0);
        QTemporaryDir dir;
        const std::string folder = rankFolder(dir).toStdString();
        const RankOverviewAnswer ranks = answerRankOverview(findRankFiles(folder), {std::nullopt, 2, {}}, nullptr);
        QCOMPARE(ranks.ranks.size(), size_t(2));
        for (const RankFigures &r : ranks.ranks)
            QCOMPARE(r.peakActiveBytes, peak);
        StitchRequest rank0;
        const StitchAnswer stitched = answerStitch(findRankFiles(folder), rank0, nullptr);
        QCOMPARE(stitched.reports.at(0).summary.peakActiveBytes, peak);
        QTemporaryDir out;
        const ExportAnswer exported = answerExport({gpt2(), out.filePath("ds").toStdString(), 1, 1}, nullptr);
        QCOMPARE(exported.inputs.size(), size_t(1));
        QCOMPARE(exported.failed(), size_t(0));
        QCOMPARE(uint64_t(exported.inputs[0].rows[size_t(FleetTable::Events)]), uint64_t(snapshot->traces.at(0).action.size()));
    }

private:
    std::set<QString> refused_;
};

QTEST_GUILESS_MAIN(TestQuestions)
#include "tst_questions.moc"
