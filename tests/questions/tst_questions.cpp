// The questions the command line, MCP and the window ask (parsers/questions/), called as values
// without a subprocess: each refusal names the argument at fault and says whether the argument
// or the file is to blame, and the answers agree with what torch measured in the same runs.
#include "CorpusFiles.h"
#include "decode/SnapshotLoader.h"
#include "questions/LiveAtQuestion.h"
#include "questions/QuestionError.h"
#include "questions/ReplayQuestion.h"
#include "questions/StepsQuestion.h"
#include "questions/SummaryQuestion.h"

#include <QTest>
#include <functional>

using namespace memlens;

namespace {

std::shared_ptr<const Snapshot> loaded(const QString &path)
{
    return std::shared_ptr<const Snapshot>(loadSnapshot(path.toStdString()));
}

QString corpusFile(const char *relative)
{
    return corpusDir() + "/" + relative;
}

} // namespace

class TestQuestions : public QObject {
    Q_OBJECT

private slots:
    // A refusal is a QuestionError naming MCP's argument ("device", "at", "path", "alloc_conf") and
    // its kind: Usage (the argument is wrong) or Input (this file cannot answer).
    void refusalsNameTheArgument_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<std::function<void(const std::string &, std::shared_ptr<const Snapshot>)>>("ask");
        QTest::addColumn<QString>("argument");
        QTest::addColumn<bool>("input");
        using Ask = std::function<void(const std::string &, std::shared_ptr<const Snapshot>)>;
        const QString gpt2 = corpusFile("snapshots/gpt2_fp32_adamw/snapshot.pickle");
        QTest::newRow("summary of a device the file lacks") << gpt2 << Ask([](const std::string &f, auto s) {
            SummaryRequest r;
            r.device = 3;
            answerSummary(f, s, r);
        }) << "device" << false;
        QTest::newRow("live at the OOM of a run without one") << gpt2 << Ask([](const std::string &f, auto s) {
            answerMoment(f, s, {std::nullopt, Moment::parse("oom").value(), 5});
        }) << "at" << false;
        QTest::newRow("live after the last entry") << gpt2 << Ask([](const std::string &f, auto s) {
            answerMoment(f, s, {std::nullopt, Moment::parse("99999999").value(), 5});
        }) << "at" << false;
        QTest::newRow("steps of a device the file lacks") << gpt2 << Ask([](const std::string &f, auto s) { answerSteps(f, s, 1); }) << "device" << false;
        QTest::newRow("replay of a profiler trace") << corpusFile("profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz")
                                                     << Ask([](const std::string &f, auto s) { answerReplay(f, *s, ReplayRequest{}); }) << "path" << true;
        QTest::newRow("replay of a fraction of an unnamed device") << gpt2 << Ask([](const std::string &f, auto s) {
            ReplayRequest r;
            r.allocConf = "per_process_memory_fraction:0.5";
            answerReplay(f, *s, r);
        }) << "alloc_conf" << false;
        QTest::newRow("replay of a setting that does not parse") << gpt2 << Ask([](const std::string &f, auto s) {
            ReplayRequest r;
            r.allocConf = "max_split_size_mb:huge";
            answerReplay(f, *s, r);
        }) << "alloc_conf" << false;
    }
    void refusalsNameTheArgument()
    {
        QFETCH(QString, file);
        QFETCH(std::function<void(const std::string &, std::shared_ptr<const Snapshot>)>, ask);
        QFETCH(QString, argument);
        QFETCH(bool, input);
        const auto snapshot = loaded(file);
        try {
            ask(file.toStdString(), snapshot);
            QFAIL("answered");
        } catch (const QuestionError &e) {
            QCOMPARE(QString::fromStdString(e.argument), argument);
            QCOMPARE(e.kind == QuestionError::Kind::Input, input);
            QVERIFY(std::string(e.what()).find('\n') == std::string::npos);
        }
    }

    // Answers as values: the summary's peak reserved is torch's max_memory_reserved(); live at the
    // OOM is the OOM entry itself; the replay under the run's own setting predicts that OOM; the
    // steps are torch's, from our marks.
    void answersAgreeWithTorch()
    {
        const QString gpt2 = corpusFile("snapshots/gpt2_fp32_adamw/snapshot.pickle");
        const QJsonObject truth = readJsonObject(corpusFile("snapshots/gpt2_fp32_adamw/truth.json"));
        SummaryRequest one;
        one.oneDevice = true;
        const SummaryAnswer summary = answerSummary(gpt2.toStdString(), loaded(gpt2), one);
        QCOMPARE(summary.reports.size(), size_t(1));
        QCOMPARE(summary.reports[0].summary.peakReservedBytes, uint64_t(truth["peak_reserved"].toInteger()));
        const StepsAnswer steps = answerSteps(gpt2.toStdString(), summary.snapshot, std::nullopt);
        QCOMPARE(steps.report.summary.steps.size(), size_t(3));
        QCOMPARE(steps.report.summary.stepsFrom, StepSource::Marks);

        const QString oom = corpusFile("snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const auto oomSnapshot = loaded(oom);
        const MomentAnswer atOom = answerMoment(oom.toStdString(), oomSnapshot, {std::nullopt, Moment::parse("oom").value(), 5});
        QVERIFY(!atOom.point.isStart());
        QCOMPARE(oomSnapshot->traces.at(0).action[atOom.point.lastEntry().index()], Action::Oom);
        const ReplayAnswer replay = answerReplay(oom.toStdString(), *oomSnapshot, ReplayRequest{});
        QVERIFY(replay.result.predicted.oomAt.has_value());
        QCOMPARE(*replay.result.predicted.oomAt, atOom.point.lastEntry());
    }
};

QTEST_GUILESS_MAIN(TestQuestions)
#include "tst_questions.moc"
