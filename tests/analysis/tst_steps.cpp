// Steps and leak suspects, against what torch measured in the same runs (truth.json marks)
// and against snapshots with a leak planted in them.
#include "CorpusFiles.h"
#include "index/DeviceIndex.h"
#include "figures/SnapshotSummary.h"
#include "figures/StepParts.h"
#include "attribution/AllocationSite.h"
#include "decode/SnapshotLoader.h"
#include "model/Snapshot.h"
#include "figures/AllocationCategories.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace memlens;

namespace {

DeviceSummary summaryOf(const QString &file)
{
    auto snapshot = loadSnapshot(file.toStdString());
    DeviceIndex index(*snapshot, 0);
    return summarizeDevice(*snapshot, index, 5);
}

QString snapshotIn(const QString &run)
{
    const QDir dir(corpusDir() + "/snapshots/" + run);
    return dir.filePath(dir.entryList({"snapshot.pickle*"}).value(0));
}

// torch.cuda.memory_allocated() right after each training step of a corpus run (truth.json).
QList<qint64> allocatedAfterEachStep(const QString &run)
{
    QList<qint64> allocated;
    for (const QJsonValue &m : readJsonObject(corpusDir() + "/snapshots/" + run + "/truth.json")["marks"].toArray()) {
        if (m["tag"].toString().startsWith("step"))
            allocated << m["allocated"].toInteger();
    }
    return allocated;
}

} // namespace

class TestSteps : public QObject {
    Q_OBJECT

private slots:
    // One step per `stepN` mark, and at each step's end the allocator's bytes equal
    // torch.cuda.memory_allocated() right after it (within 1 %).
    void stepsMatchTorchMarks_data()
    {
        QTest::addColumn<QString>("run");
        for (const char *run : {"gpt2_fp32_adamw", "frag_varlen_gpt2", "resnet50_bf16_sgd", "tinyllama_bf16_ckpt_cpp_stacks"})
            QTest::newRow(run) << QString(run);
    }
    void stepsMatchTorchMarks()
    {
        QFETCH(QString, run);
        const QList<qint64> allocated = allocatedAfterEachStep(run);
        const DeviceSummary s = summaryOf(snapshotIn(run));
        QCOMPARE(qsizetype(s.steps.size()), allocated.size());
        uint64_t highest = 0;
        for (size_t k = 0; k < s.steps.size(); ++k) {
            const StepSummary &step = s.steps[k];
            QCOMPARE(step.index, uint32_t(k));
            QVERIFY(step.firstEvent <= step.lastEvent);
            if (k > 0)
                QVERIFY(step.firstEvent > s.steps[k - 1].lastEvent);
            QVERIFY(step.endActiveBytes <= step.endAllocatedBytes);
            QVERIFY(step.peakActiveBytes >= step.endActiveBytes);
            const double error = std::abs(double(step.endAllocatedBytes) - double(allocated[qsizetype(k)])) / double(allocated[qsizetype(k)]);
            QVERIFY2(error < 0.01, qPrintable(QString("step %1: %2 vs torch %3").arg(k).arg(step.endAllocatedBytes).arg(allocated[qsizetype(k)])));
            highest = std::max(highest, step.peakActiveBytes);
        }
        // The run's peak falls in a step here, so the highest step peak is the peak.
        QCOMPARE(highest, s.peakActiveBytes);
    }

    // A trace whose phases never repeat has no steps (the OOM dump stops in its first step).
    void noRepetitionNoSteps()
    {
        const DeviceSummary s = summaryOf(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        QVERIFY(!s.phases.empty());
        QVERIFY(s.steps.empty());
        QVERIFY(s.leakSuspects.empty());
    }

    // A leak planted in a corpus run (one call site, a fixed size per step, never freed) is
    // the first suspect, with its exact bytes.
    // The same as users record it: torch's marks only, or none at all (make_user_variants.py).
    void plantedLeakFoundFirst_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<qint64>("size");
        QTest::addColumn<int>("steps");
        QTest::addColumn<QString>("marks");
        for (const char *marks : {"ours", "torch", "none"}) {
            QTest::addRow("gpt2, 4 MiB x 3, marks: %s", marks) << QString("gpt2_fp32_adamw") << qint64(4 << 20) << 3 << QString(marks);
            QTest::addRow("varying lengths, 1 MiB x 24, marks: %s", marks) << QString("frag_varlen_gpt2") << qint64(1 << 20) << 24 << QString(marks);
            QTest::addRow("resnet, 512 B x 3, marks: %s", marks) << QString("resnet50_bf16_sgd") << qint64(512) << 3 << QString(marks);
        }
    }
    void plantedLeakFoundFirst()
    {
        QFETCH(QString, run);
        QFETCH(qint64, size);
        QFETCH(int, steps);
        QFETCH(QString, marks);
        QTemporaryDir dir;
        QString out = dir.filePath("leak.pickle");
        QString error;
        runPythonTool("plant_leak.py", {snapshotIn(run), out, "--size", QString::number(size)}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        if (marks != "ours") {
            const QString users = dir.filePath("users.pickle");
            runPythonTool("make_user_variants.py", {out, users, "--marks", marks}, &error);
            QVERIFY2(error.isEmpty() && QFile::exists(users), qPrintable(error));
            out = users;
        }
        auto snapshot = loadSnapshot(out.toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QCOMPARE(int(s.steps.size()), steps);
        QVERIFY(!s.leakSuspects.empty());
        const LeakSuspect &first = s.leakSuspects.front();
        QCOMPARE(first.bytes, uint64_t(size) * uint64_t(steps));
        QCOMPARE(first.allocations, uint64_t(steps));
        QCOMPARE(first.steps, uint32_t(steps));
        QCOMPARE(first.perStepBytes, std::vector<uint64_t>(size_t(steps), uint64_t(size)));
        QCOMPARE(snapshot->frameText(snapshot->stacks.at(first.stack).front()), std::string("train.py:42:leaky"));
    }

    // A leak planted as each forward starts, before the step's first module call: without our
    // marks the first block lies before any step the evidence opens. It grew in no step, but it
    // is live at the end from the leaking stack, so the suspect's bytes count every block.
    void plantedLeakBeforeTheFirstModuleCall_data()
    {
        QTest::addColumn<QString>("marks");
        for (const char *marks : {"torch", "none"})
            QTest::newRow(marks) << QString(marks);
    }
    void plantedLeakBeforeTheFirstModuleCall()
    {
        QFETCH(QString, marks);
        QTemporaryDir dir;
        const QString planted = dir.filePath("leak.pickle"), out = dir.filePath("users.pickle");
        const qint64 size = 4 << 20;
        QString error;
        runPythonTool("plant_leak.py", {snapshotIn("gpt2_fp32_adamw"), planted, "--size", QString::number(size), "--at", "forward-start"}, &error);
        runPythonTool("make_user_variants.py", {planted, out, "--marks", marks}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        const DeviceSummary s = summaryOf(out);
        QCOMPARE(s.steps.size(), size_t(3));
        QVERIFY(!s.leakSuspects.empty());
        const LeakSuspect &first = s.leakSuspects.front();
        QCOMPARE(first.bytes, uint64_t(size) * 3);
        QCOMPARE(first.allocations, uint64_t(3));
        QVERIFY(first.steps >= 2);
    }

    // Growth needs three whole steps to be told from one step's own memory: the same leak planted
    // in a two-step run is no suspect, and the summary says why.
    void twoStepsAreNoEvidence()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("leak.pickle");
        QString error;
        runPythonTool("plant_leak.py", {snapshotIn("tinyllama_bf16_ckpt_cpp_stacks"), out, "--size", QString::number(4 << 20)}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        auto snapshot = loadSnapshot(out.toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QCOMPARE(wholeStepCount(s.steps), size_t(2));
        QVERIFY(s.leakSuspects.empty());
        QVERIFY2(s.whyNoLeakSuspects.find("2 whole steps") != std::string::npos, s.whyNoLeakSuspects.c_str());
    }

    // Large jobs mark every layer (FSDP2's FSDP::pre_forward (layers.N), Megatron's and
    // DeepSpeed's per-layer ranges). A first-iteration OOM so marked has no step and no suspect
    // (memlens once found 34 "steps" and 16 "leaks" in one forward pass); its memory at the OOM
    // is still told by category, not "unknown".
    void perLayerMarksFirstIterationOom_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("dropUserMarks");
        for (const char *framework : {"fsdp2", "megatron", "deepspeed"}) {
            QTest::newRow(qPrintable(QString(framework) + ", marks of its own only")) << QString(framework) << true;
            QTest::newRow(qPrintable(QString(framework) + ", and the script's")) << QString(framework) << false;
        }
    }
    void perLayerMarksFirstIterationOom()
    {
        QFETCH(QString, framework);
        QFETCH(bool, dropUserMarks);
        QTemporaryDir dir;
        const QString out = dir.filePath("oom.pickle");
        QStringList args{snapshotIn("tinyllama_bf16_ckpt_cpp_stacks"), out, "--framework", framework, "--oom-in-first-step"};
        if (dropUserMarks)
            args << "--drop-user-marks";
        QString error;
        runPythonTool("make_layer_marks.py", args, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        auto snapshot = loadSnapshot(out.toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QVERIFY(s.phases.size() > 40);
        QVERIFY(!s.ooms.empty());
        QVERIFY(s.steps.size() <= 1);
        QVERIFY(s.leakSuspects.empty());
        QVERIFY(!s.whyNoLeakSuspects.empty());
        // Said once: it read "no training steps: fewer than two whole training steps (…)".
        QVERIFY2(s.whyNoLeakSuspects.find("training steps") == s.whyNoLeakSuspects.rfind("training steps"), s.whyNoLeakSuspects.c_str());
        const uint64_t unknown = s.categoryBytesAtPeak[size_t(Category::Unknown)];
        QVERIFY2(unknown * 10 < s.peakActiveBytes, qPrintable(QString("%1 of %2 unknown").arg(unknown).arg(s.peakActiveBytes)));
    }

    // The same marks over whole runs: the steps are the training steps torch marked, each ending
    // at the bytes torch.cuda.memory_allocated() reported, whether the script marks its passes or not.
    void perLayerMarksKeepTheSteps_data()
    {
        QTest::addColumn<QString>("run");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("dropUserMarks");
        QTest::newRow("gpt2, fsdp2") << QString("gpt2_fp32_adamw") << QString("fsdp2") << true;
        QTest::newRow("gpt2, megatron") << QString("gpt2_fp32_adamw") << QString("megatron") << true;
        QTest::newRow("gpt2, deepspeed") << QString("gpt2_fp32_adamw") << QString("deepspeed") << true;
        QTest::newRow("tinyllama, fsdp2") << QString("tinyllama_bf16_ckpt_cpp_stacks") << QString("fsdp2") << true;
        QTest::newRow("tinyllama, deepspeed, with the script's") << QString("tinyllama_bf16_ckpt_cpp_stacks") << QString("deepspeed") << false;
        QTest::newRow("varying lengths, fsdp2") << QString("frag_varlen_gpt2") << QString("fsdp2") << true;
    }
    void perLayerMarksKeepTheSteps()
    {
        QFETCH(QString, run);
        QFETCH(QString, framework);
        QFETCH(bool, dropUserMarks);
        QTemporaryDir dir;
        const QString out = dir.filePath("marked.pickle");
        QStringList args{snapshotIn(run), out, "--framework", framework};
        if (dropUserMarks)
            args << "--drop-user-marks";
        QString error;
        runPythonTool("make_layer_marks.py", args, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        const QList<qint64> allocated = allocatedAfterEachStep(run);
        auto snapshot = loadSnapshot(out.toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QCOMPARE(qsizetype(s.steps.size()), allocated.size());
        QCOMPARE(qsizetype(wholeStepCount(s.steps)), allocated.size());
        for (size_t k = 0; k < s.steps.size(); ++k) {
            const double error = std::abs(double(s.steps[k].endAllocatedBytes) - double(allocated[qsizetype(k)])) / double(allocated[qsizetype(k)]);
            QVERIFY2(error < 0.01, qPrintable(QString("step %1: %2 vs torch %3").arg(k).arg(s.steps[k].endAllocatedBytes).arg(allocated[qsizetype(k)])));
        }
        uint64_t suspected = 0;
        for (const LeakSuspect &l : s.leakSuspects)
            suspected += l.bytes;
        QVERIFY(suspected <= s.peakActiveBytes / 1000);
    }

    // Users' files carry none of our forward/backward/optimizer marks: torch's own marks only, no
    // marks at all, or none with the training function called as torchtitan, Megatron or a user
    // would call it; recorded with context="alloc" (no stacks on frees); or a script that frees
    // its model and optimizer before it dumps (make_user_variants.py). Each variant of each
    // multi-step corpus run has the run's steps, each ending at the bytes
    // torch.cuda.memory_allocated() reported after it, and says which evidence gave them; at the
    // peak, each category is within 3 % of the peak of what our marks say the allocations are
    // (category_oracle.py) and of the marked original's. Without any stacks the steps come from
    // torch's marks alone, every byte is of no known category, and the file says it has no stacks.
    void usersVariants_data() { stepsMatchTorchMarks_data(); }
    void usersVariants()
    {
        QFETCH(QString, run);
        QTemporaryDir dir;
        QString error;
        const QJsonObject made = QJsonDocument::fromJson(runPythonTool("make_user_variants.py", {snapshotIn(run), dir.path(), "--all"}, &error)).object();
        QVERIFY2(error.isEmpty() && made["files"].toArray().size() == 8, qPrintable(error));
        const QJsonObject oracle = QJsonDocument::fromJson(runPythonTool("category_oracle.py", {snapshotIn(run)}, &error)).object();
        QVERIFY2(error.isEmpty() && oracle["peak_bytes"].toInteger() > 0, qPrintable(error));
        const QList<qint64> allocated = allocatedAfterEachStep(run);
        const DeviceSummary marked = summaryOf(snapshotIn(run));
        QCOMPARE(marked.stepsFrom, StepSource::Marks);
        QCOMPARE(marked.peakActiveBytes, uint64_t(oracle["peak_bytes"].toInteger()));
        const DeviceSummary torchMarks = summaryOf(dir.filePath("torch.pickle"));
        for (const QJsonValue &file : made["files"].toArray()) {
            const QString variant = QFileInfo(file.toString()).baseName();
            const DeviceSummary s = summaryOf(file.toString());
            const bool byTorchMarks = variant == "torch" || variant == "context_alloc" || variant == "teardown" || variant == "no_stacks";
            QCOMPARE(s.stepsFrom, byTorchMarks ? StepSource::OptimizerMarks : StepSource::OptimizerFrames);
            QCOMPARE(qsizetype(wholeStepCount(s.steps)), allocated.size());
            QCOMPARE(std::count_if(s.warnings.begin(), s.warnings.end(), [](const FileWarning &w) { return w.kind == "no_stacks"; }),
                     variant == "no_stacks" ? 1 : 0);
            QVERIFY(s.steps.size() <= wholeStepCount(s.steps) + 1);
            for (size_t k = 0; k < s.steps.size() && qsizetype(k) < allocated.size(); ++k) {
                // Freed before the dump, no block keeps the allocator's size of what a step kept:
                // its requested bytes are those of the same file without the teardown.
                if (variant == "teardown") {
                    QCOMPARE(s.steps[k].endActiveBytes, torchMarks.steps[k].endActiveBytes);
                    continue;
                }
                const double off = std::abs(double(s.steps[k].endAllocatedBytes) - double(allocated[qsizetype(k)])) / double(allocated[qsizetype(k)]);
                QVERIFY2(off < 0.01, qPrintable(QString("%1 step %2: %3 vs torch %4").arg(variant).arg(k).arg(s.steps[k].endAllocatedBytes).arg(allocated[qsizetype(k)])));
            }
            QCOMPARE(s.peakActiveBytes, marked.peakActiveBytes);
            if (variant == "no_stacks") {
                QCOMPARE(s.categoryBytesAtPeak[size_t(Category::Unknown)], s.peakActiveBytes);
                continue;
            }
            const double tolerance = 0.03 * double(s.peakActiveBytes);
            for (int c = 0; c < kCategoryCount; ++c) {
                const auto name = QString::fromUtf8(categoryName(Category(c)));
                const double bytes = double(s.categoryBytesAtPeak[size_t(c)]);
                const double byMarks = double(oracle["categories"][name].toInteger());
                QVERIFY2(std::abs(bytes - byMarks) <= tolerance, qPrintable(QString("%1 %2: %3 where the marks say %4").arg(variant, name).arg(bytes).arg(byMarks)));
                QVERIFY2(std::abs(bytes - double(marked.categoryBytesAtPeak[size_t(c)])) <= tolerance,
                         qPrintable(QString("%1 %2: %3, the marked run %4").arg(variant, name).arg(bytes).arg(marked.categoryBytesAtPeak[size_t(c)])));
            }
        }
    }

    // Which part of a step each allocation lies in, from the evidence alone (figures/StepParts,
    // read on the file without any marks), against the forward / backward / optimizer marks our
    // recorder wrote around each part: at least 95 % of the allocations made inside a marked
    // part are placed in it, and every OOM inside the optimizer's mark is in the optimizer step.
    void stepPartsAgreeWithTheRecordersMarks_data()
    {
        QTest::addColumn<QString>("run");
        for (const char *run : {"gpt2_fp32_adamw", "frag_varlen_gpt2", "resnet50_bf16_sgd", "tinyllama_bf16_ckpt_cpp_stacks", "oom_gpt2_medium_6gib"})
            QTest::newRow(run) << QString(run);
    }
    void stepPartsAgreeWithTheRecordersMarks()
    {
        QFETCH(QString, run);
        QTemporaryDir dir;
        const QString users = dir.filePath("none.pickle");
        const QString source = run == "oom_gpt2_medium_6gib" ? corpusDir() + "/snapshots/" + run + "/oom_snapshot.pickle" : snapshotIn(run);
        QString error;
        runPythonTool("make_user_variants.py", {source, users, "--marks", "none"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(users), qPrintable(error));
        const auto marked = loadSnapshot(source.toStdString());
        const auto bare = loadSnapshot(users.toStdString());
        QVERIFY(bare->phaseMarks.empty());
        const DeviceIndex markedIndex(*marked, 0), index(*bare, 0);
        const StepParts parts(*bare, index, phaseRanges(*bare, 0));
        std::vector<PhaseRange> byMarks = phaseRanges(*marked, 0);
        std::erase_if(byMarks, [](const PhaseRange &p) { return stepPartOfName(p.name) == StepPart::None || !p.startUs; });
        const EventTable &ev = markedIndex.events();
        size_t inside = 0, agree = 0;
        for (uint32_t e = 0; e < ev.count(); ++e) {
            if (ev.action[e] != Action::Alloc && ev.action[e] != Action::Oom)
                continue;
            const PhaseRange *p = innermostPhaseAt(byMarks, ev.timeUs[e]);
            if (!p)
                continue;
            const StepPart want = stepPartOfName(p->name), got = parts.at(TracePoint::after(EventId(e)));
            ++inside;
            agree += got == want;
            if (ev.action[e] == Action::Oom && want == StepPart::Optimizer)
                QCOMPARE(got, StepPart::Optimizer);
        }
        QVERIFY(inside > 100);
        qInfo("%s: %zu of %zu allocations in the part the marks say", qPrintable(run), agree, inside);
        QVERIFY2(double(agree) >= 0.95 * double(inside), qPrintable(QString("%1 of %2").arg(agree).arg(inside)));
    }

    // Blocks a framework made before recording began carry the frames that made them in the
    // final snapshot: a vLLM KV cache, Megatron's distributed optimizer (its Adam state and fp32
    // main params), FSDP2's weight shards (make_user_variants.py --before-trace, each in a
    // segment the trace never touches). Each is counted in its category to the byte the generator
    // wrote, on top of the run's own; nothing else moves.
    void blocksFromBeforeTheTraceByTheirFrames_data()
    {
        QTest::addColumn<QStringList>("kinds");
        QTest::addColumn<int>("category");
        QTest::newRow("vLLM KV cache") << QStringList{"kv_cache"} << int(Category::KvCache);
        QTest::newRow("Megatron distributed optimizer") << QStringList{"megatron_optimizer", "megatron_main_params"} << int(Category::OptimizerState);
        QTest::newRow("FSDP2 shards") << QStringList{"fsdp_shard"} << int(Category::Parameter);
    }
    void blocksFromBeforeTheTraceByTheirFrames()
    {
        QFETCH(QStringList, kinds);
        QFETCH(int, category);
        QTemporaryDir dir;
        const QString plain = dir.filePath("torch.pickle"), out = dir.filePath("before.pickle");
        QStringList args{snapshotIn("gpt2_fp32_adamw"), out, "--marks", "torch"};
        for (const QString &kind : kinds)
            args << "--before-trace" << kind;
        QString error;
        const QJsonObject made = QJsonDocument::fromJson(runPythonTool("make_user_variants.py", args, &error)).object();
        runPythonTool("make_user_variants.py", {snapshotIn("gpt2_fp32_adamw"), plain, "--marks", "torch"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out) && QFile::exists(plain), qPrintable(error));
        uint64_t written = 0;
        for (const QString &kind : kinds)
            written += uint64_t(made["before_trace_bytes"].toObject()[kind].toInteger());
        QVERIFY(written > 0);
        const DeviceSummary before = summaryOf(out), own = summaryOf(plain);
        QCOMPARE(before.peakActiveBytes, own.peakActiveBytes + written);
        for (int c = 0; c < kCategoryCount; ++c)
            QCOMPARE(before.categoryBytesAtPeak[size_t(c)], own.categoryBytesAtPeak[size_t(c)] + (c == category ? written : 0));
        QVERIFY(before.categoryBytesAtPeak[size_t(Category::Unknown)] <= before.peakActiveBytes / 4);
        QCOMPARE(before.categoryBytesFromBeforeTrace[size_t(category)], written); // said as coming from the blocks' frames
    }

    // A run that dies in the first iteration's forward, before any backward (the corpus runs cut
    // where their first forward peaks, marks removed): nothing in it is a gradient, no step.
    void forwardOnlyOomHasNoGradients_data() { stepsMatchTorchMarks_data(); }
    void forwardOnlyOomHasNoGradients()
    {
        QFETCH(QString, run);
        QTemporaryDir dir;
        const QString out = dir.filePath("oom.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {snapshotIn(run), out, "--marks", "none", "--forward-oom"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        const DeviceSummary s = summaryOf(out);
        QVERIFY(!s.ooms.empty());
        QVERIFY(s.steps.empty());
        QCOMPARE(s.categoryBytesAtPeak[size_t(Category::Gradient)], uint64_t(0));
        QVERIFY(s.categoryBytesAtPeak[size_t(Category::Activation)] > s.peakActiveBytes / 10);
        QVERIFY(s.categoryBytesAtPeak[size_t(Category::Parameter)] > 0);
    }

    // Python-stack runs record no stack on autograd's thread: a stackless block the trace made
    // there is backward's, and its site says so; a file without any stack cannot tell.
    void stacklessBlocksOfAutogradsThreadSayBackward()
    {
        QTemporaryDir dir;
        const QString bare = dir.filePath("no_stacks.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {snapshotIn("gpt2_fp32_adamw"), bare, "--marks", "torch", "--no-stacks"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(bare), qPrintable(error));
        for (const QString &file : {snapshotIn("gpt2_fp32_adamw"), bare}) {
            const auto snapshot = loadSnapshot(file.toStdString());
            const DeviceIndex index(*snapshot, 0);
            const DeviceSummary s = summarizeDevice(*snapshot, index, 20);
            size_t backward = 0;
            for (const LiveBlockInfo &l : s.topLiveAtPeak) {
                const std::string site = siteText(*snapshot, allocationSite(*snapshot, l.stack, l.autogradThread));
                if (l.stack != StackTable::kEmpty)
                    continue;
                const bool byAutograd = snapshot->facts.hasFrames && !l.allocEvent.isNone();
                QCOMPARE(l.autogradThread, byAutograd);
                QCOMPARE(site, std::string(byAutograd ? "backward (autograd's thread, no stack)" : "(no stack recorded)"));
                if (byAutograd) {
                    QVERIFY(l.category == Category::Gradient || l.category == Category::Temporary);
                    ++backward;
                }
            }
            QCOMPARE(backward > 0, snapshot->facts.hasFrames); // two of GPT-2's 785 MiB logits-sized blocks
        }
    }

    // A file whose entries carry no time_us (public NPU snapshots), marks removed: its entries'
    // order times it, so the optimizer's frames give the same steps, each with the same peak, as
    // the file with its times.
    void filesWithoutTimesKeepTheirSteps()
    {
        QTemporaryDir dir;
        const QString timed = dir.filePath("timed.pickle"), untimed = dir.filePath("untimed.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {snapshotIn("gpt2_fp32_adamw"), timed, "--marks", "none"}, &error);
        runPythonTool("make_user_variants.py", {snapshotIn("gpt2_fp32_adamw"), untimed, "--marks", "none", "--no-times"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(untimed), qPrintable(error));
        const auto snapshot = loadSnapshot(untimed.toStdString());
        QVERIFY(!snapshot->facts.hasTimes);
        const DeviceSummary with = summaryOf(timed), without = summaryOf(untimed);
        QCOMPARE(without.stepsFrom, StepSource::OptimizerFrames);
        QCOMPARE(without.steps.size(), with.steps.size());
        for (size_t k = 0; k < with.steps.size(); ++k) {
            QCOMPARE(without.steps[k].peakActiveBytes, with.steps[k].peakActiveBytes);
            QCOMPARE(without.steps[k].partial, with.steps[k].partial);
        }
    }

    // The same run on three devices of one process, the OOM on cuda:1 (make_user_variants.py
    // --devices 3 --oom-device 1): the process stopped there, so cuda:0's and cuda:2's forward was
    // cut short as well and their activations are the OOM device's, byte for byte.
    void anotherDevicesOomCutsEveryDeviceShort()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("three.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {snapshotIn("gpt2_fp32_adamw"), out, "--marks", "none", "--forward-oom", "--devices", "3", "--oom-device", "1"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(out), qPrintable(error));
        const auto snapshot = loadSnapshot(out.toStdString());
        QCOMPARE(snapshot->devices(), (std::vector<int>{0, 1, 2}));
        std::vector<DeviceSummary> s;
        for (int device : snapshot->devices()) {
            const DeviceIndex index(*snapshot, device);
            s.push_back(summarizeDevice(*snapshot, index, 5));
        }
        QVERIFY(s[0].ooms.empty() && !s[1].ooms.empty() && s[2].ooms.empty());
        QVERIFY(s[1].categoryBytesAtPeak[size_t(Category::Activation)] > s[1].peakActiveBytes / 2);
        for (size_t d : {0u, 2u})
            QCOMPARE(s[d].categoryBytesAtPeak, s[1].categoryBytesAtPeak);
    }

    // A ring buffer that dropped the oldest entries opens mid-step: without marks the first step
    // the optimizer ends is partial, and the whole steps are those of the marked run so cut.
    void cutWindowWithoutMarks()
    {
        QTemporaryDir dir;
        const QString users = dir.filePath("users.pickle"), cut = dir.filePath("cut.pickle"), markedCut = dir.filePath("marked_cut.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {snapshotIn("frag_varlen_gpt2"), users, "--marks", "none"}, &error);
        runPythonTool("cut_trace.py", {users, cut, "0.6"}, &error);
        runPythonTool("cut_trace.py", {snapshotIn("frag_varlen_gpt2"), markedCut, "0.6"}, &error);
        QVERIFY2(error.isEmpty() && QFile::exists(cut) && QFile::exists(markedCut), qPrintable(error));
        const DeviceSummary s = summaryOf(cut), marked = summaryOf(markedCut);
        QVERIFY(s.coverage.truncated);
        QVERIFY(!s.steps.empty());
        QVERIFY(s.steps.front().partial);
        QVERIFY(wholeStepCount(s.steps) + 1 >= wholeStepCount(marked.steps) && wholeStepCount(s.steps) <= wholeStepCount(marked.steps) + 1);
    }

    // Parameters, optimizer state, caches and the cuBLAS workspace are created once and kept:
    // the unmodified runs have no suspect of significant size.
    void noFalseSuspects_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : corpusSnapshots())
            QTest::newRow(qPrintable(QFileInfo(f).dir().dirName() + "/" + QFileInfo(f).fileName())) << f;
    }
    void noFalseSuspects()
    {
        QFETCH(QString, file);
        const DeviceSummary s = summaryOf(file);
        uint64_t suspected = 0;
        for (const LeakSuspect &l : s.leakSuspects)
            suspected += l.bytes;
        QVERIFY2(suspected <= s.peakActiveBytes / 1000, qPrintable(QString("%1 bytes suspected").arg(suspected)));
    }
};

QTEST_GUILESS_MAIN(TestSteps)
#include "tst_steps.moc"
