// torch.profiler files: the Chrome trace against what the file itself holds (counted by Python's
// json module), operator attribution, and the memory-timeline exports against each other.
#include "CorpusFiles.h"
#include "IdPrinting.h"
#include "advice/FixRanking.h"
#include "SnapshotEquality.h"
#include "decode/input/ByteSource.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "index/Phases.h"
#include "figures/SnapshotSummary.h"
#include "decode/trace/ProfilerPhases.h"
#include "decode/trace/ProfilerTraceDecoder.h"
#include "decode/trace/SortRuns.h"
#include "decode/SnapshotLoader.h"
#include "model/LoadError.h"

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <atomic>
#include <functional>
#include <map>
#include <numeric>
#include <random>

using namespace memlens;

namespace {

QString profileDir()
{
    return corpusDir() + "/profiles/gpt2_bf16_adamw";
}

QByteArray gunzip(const QString &path)
{
    QProcess p;
    p.start("gzip", {"-dc", path});
    p.waitForFinished(60000);
    return p.readAllStandardOutput();
}

// A trace file through one of the two readers (the fast one is held to the reference).
std::unique_ptr<Snapshot> decodeTraceWith(const QString &file, const std::function<void(ByteReader &, Snapshot &)> &decoder)
{
    OpenedSource opened = openByteSource(file.toStdString());
    ByteReader reader(*opened.source, opened.fileSize, {});
    auto snapshot = std::make_unique<Snapshot>();
    snapshot->facts.compression = opened.compression; // as the loader says it: a compressed trace is read ahead
    decoder(reader, *snapshot);
    return snapshot;
}

// The message a fast read of `file` with `workers` ends with ("" if none), and whether it was a cancel.
std::string fastReadFailure(const QString &file, unsigned workers, bool cancelled = false)
{
    OpenedSource opened = openByteSource(file.toStdString());
    const std::atomic<bool> cancel{cancelled};
    LoadControl control;
    control.cancel = &cancel;
    ByteReader reader(*opened.source, opened.fileSize, control);
    Snapshot snapshot;
    snapshot.facts.compression = opened.compression;
    try {
        decodeProfilerTrace(reader, snapshot, workers);
    } catch (const DecodeError &e) {
        return "at " + std::to_string(e.offset) + ": " + e.what();
    } catch (const LoadCancelled &) {
        return "cancelled";
    }
    return {};
}

} // namespace

class TestProfiles : public QObject {
    Q_OBJECT

private slots:
    void traceMatchesFile()
    {
        const QString file = profileDir() + "/trace.pt.trace.json.gz";
        QString error;
        const QJsonObject facts = QJsonDocument::fromJson(runPythonTool("trace_facts.py", {file}, &error)).object();
        QVERIFY2(!facts.isEmpty(), qPrintable(error));
        auto snapshot = loadSnapshot(file.toStdString());
        QCOMPARE(snapshot->facts.format, FileFormat::ChromeTrace);
        QCOMPARE(snapshot->facts.compression, Compression::Gzip);
        QCOMPARE(snapshot->devices().size(), size_t(facts.size()));
        for (int device : snapshot->devices()) {
            const QJsonObject f = facts[QString::fromStdString(snapshot->deviceName(device))].toObject();
            QVERIFY(!f.isEmpty());
            DeviceIndex index(*snapshot, device);
            const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
            QCOMPARE(static_cast<qint64>(s.entries), f["events"].toInteger());
            QCOMPARE(static_cast<qint64>(s.actions[static_cast<size_t>(Action::Alloc)]), f["allocs"].toInteger());
            QVERIFY(s.traceTotals);
            QCOMPARE(static_cast<qint64>(s.traceTotals->peakAllocated), f["peak_total_allocated"].toInteger());
            QCOMPARE(static_cast<qint64>(s.traceTotals->finalAllocated), f["final_total_allocated"].toInteger());
            QCOMPARE(static_cast<qint64>(s.traceTotals->finalReserved), f["final_total_reserved"].toInteger());
            QCOMPARE(static_cast<qint64>(index.peakReservedBytes()), f["final_total_reserved"].toInteger());
            // Memory allocated before profiling began counts: the active line's peak is the
            // trace's own maximum of Total Allocated.
            QCOMPARE(static_cast<qint64>(s.peakActiveBytes), f["peak_total_allocated"].toInteger());
        }
    }

    // Forward and backward come from the operators (outermost module calls, autograd's
    // evaluate_function), so the trace has steps and categories as a snapshot does.
    void phasesAndCategoriesFromOperators()
    {
        const QString file = profileDir() + "/trace.pt.trace.json.gz";
        QString error;
        const QJsonObject facts = QJsonDocument::fromJson(runPythonTool("trace_structure.py", {file}, &error)).object();
        QVERIFY2(!facts.isEmpty(), qPrintable(error));
        auto snapshot = loadSnapshot(file.toStdString());
        auto timeline = loadSnapshot((profileDir() + "/memory_timeline.json.gz").toStdString());
        for (int device : snapshot->devices()) {
            const std::vector<PhaseRange> phases = phaseRanges(*snapshot, device);
            std::vector<const PhaseRange *> forward, backward;
            for (const PhaseRange &p : phases) {
                if (p.name == "forward")
                    forward.push_back(&p);
                if (p.name == "backward")
                    backward.push_back(&p);
            }
            const QJsonArray steps = facts["steps"].toArray();
            QCOMPARE(int(forward.size()), facts["outer_modules"].toInt());
            QCOMPARE(int(backward.size()), int(steps.size()));
            for (int i = 0; i < steps.size(); ++i) {
                // One backward range per step, spanning all of its autograd operators.
                const QJsonObject step = steps[i].toObject();
                QCOMPARE(*backward[size_t(i)]->startUs, step["first_autograd_us"].toInteger());
                QCOMPARE(*backward[size_t(i)]->endUs, step["last_autograd_us"].toInteger());
                QVERIFY(*forward[size_t(i)]->endUs <= *backward[size_t(i)]->startUs);
            }
            DeviceIndex index(*snapshot, device);
            const AllocationCategories categories(*snapshot, index);
            const DeviceSummary s = summarizeDevice(*snapshot, index, 5, &categories);
            QCOMPARE(s.steps.size(), size_t(steps.size()));
            if (device != 0)
                continue;
            // At the peak: the optimizer state is what torch's own memory timeline says, and
            // nothing allocated within the trace is left unknown (only what predates profiling).
            const CategoryTimeline &torch = *timeline->categories;
            size_t top = 0;
            auto sum = [](const auto &row) { return std::accumulate(row.begin(), row.end(), uint64_t(0)); };
            for (size_t k = 0; k < torch.bytes.size(); ++k)
                if (sum(torch.bytes[k]) > sum(torch.bytes[top]))
                    top = k;
            const auto at = categories.bytesAt(index, index.peak());
            QCOMPARE(at[size_t(Category::OptimizerState)], torch.bytes[top][1]);
            QVERIFY(!index.preProfileAllocation().isNone());
            // What stays unknown beyond that is kept for the whole run (cuBLAS workspaces) or small
            // (an input batch, the loss gradient's seed): under 1 % of the peak.
            uint64_t unknownInTrace = 0;
            for (AllocationId id : index.liveAt(index.peak())) {
                if (categories.of(id) != Category::Unknown || id == index.preProfileAllocation())
                    continue;
                QVERIFY(index.allocation(id).freeCompleted == kNever || index.detail(id).size < (1u << 20));
                unknownInTrace += index.detail(id).size;
            }
            QCOMPARE(at[size_t(Category::Unknown)], index.detail(index.preProfileAllocation()).size + unknownInTrace);
            QVERIFY(unknownInTrace < s.peakActiveBytes / 100);
            QVERIFY(at[size_t(Category::Activation)] > s.peakActiveBytes / 2);
        }
    }

    // Without module calls (no with_stack), forward is each step's stretch before its first
    // autograd operator; backward clusters never run across a step or optimizer start.
    void phasesWithoutModules()
    {
        OperatorRanges r;
        r.steps = {{0, 100}, {100, 200}};
        r.optimizer = {{80, 95}, {180, 195}};
        r.autograd = {{40, 45}, {46, 79}, {140, 150}, {151, 170}};
        const std::vector<InferredPhase> phases = inferPhases(r);
        QCOMPARE(phases.size(), size_t(4));
        const std::vector<std::tuple<std::string, double, double>> expected{
            {"forward", 0, 40}, {"backward", 40, 79}, {"forward", 100, 140}, {"backward", 140, 170}};
        for (size_t i = 0; i < phases.size(); ++i)
            QCOMPARE(std::make_tuple(phases[i].name, phases[i].range.start, phases[i].range.end), expected[i]);
        // With an optimizer start between two autograd operators they are two passes.
        r.optimizer = {{45.5, 45.8}};
        const std::vector<InferredPhase> split = inferPhases(r);
        QCOMPARE(std::count_if(split.begin(), split.end(), [](const InferredPhase &p) { return p.name == "backward"; }), 3);
    }

    // Every CUDA allocation is attributed to the operator (and Python function) running on its
    // thread at that moment.
    void everyAllocationHasAnOperator()
    {
        auto snapshot = loadSnapshot((profileDir() + "/trace.pt.trace.json.gz").toStdString());
        const EventTable &ev = snapshot->traces.at(0);
        size_t allocs = 0;
        for (size_t i = 0; i < ev.count(); ++i) {
            if (ev.action[i] != Action::Alloc)
                continue;
            ++allocs;
            QVERIFY2(!snapshot->stacks.at(ev.stack[i]).empty(), qPrintable(QString("allocation at event %1 has no operator").arg(i)));
        }
        QVERIFY(allocs > 4000);
        // The loss: log_softmax's output is among the largest allocations at the peak.
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        bool softmax = false;
        for (const LiveBlockInfo &b : s.topLiveAtPeak) {
            for (FrameId f : snapshot->stacks.at(b.stack))
                softmax = softmax || snapshot->strings.at(snapshot->frames.at(f).name).find("log_softmax") != std::string_view::npos;
        }
        QVERIFY(softmax);
        QVERIFY(snapshot->facts.hasPhases); // ProfilerStep#N ranges
    }

    void pythonFunctionNames()
    {
        std::string_view file, name;
        int64_t line = 0;
        QVERIFY(parsePythonFunctionName("torch/nn/modules/module.py(1779): _call_impl", file, line, name));
        QCOMPARE(file, std::string_view("torch/nn/modules/module.py"));
        QCOMPARE(line, int64_t(1779));
        QCOMPARE(name, std::string_view("_call_impl"));
        QVERIFY(!parsePythonFunctionName("aten::mm", file, line, name));
        QVERIFY(!parsePythonFunctionName("f(x): y", file, line, name));
    }

    // export_memory_timeline's two files agree: the per-category rows equal the replay of the
    // raw events at the same timestamps.
    void categoryTimelines()
    {
        auto coalesced = loadSnapshot((profileDir() + "/memory_timeline.json.gz").toStdString());
        auto raw = loadSnapshot((profileDir() + "/memory_timeline.raw.json.gz").toStdString());
        QCOMPARE(coalesced->facts.format, FileFormat::MemoryTimeline);
        QCOMPARE(raw->facts.format, FileFormat::MemoryTimelineRaw);
        QVERIFY(coalesced->categories && raw->categories);
        const CategoryTimeline &a = *coalesced->categories, &b = *raw->categories;
        QVERIFY(a.timeUs.size() > 1000);
        std::map<int64_t, size_t> lastAt;
        for (size_t i = 0; i < b.timeUs.size(); ++i)
            lastAt[b.timeUs[i]] = i;
        size_t compared = 0, differing = 0;
        for (size_t i = 0; i < a.timeUs.size(); ++i) {
            auto it = lastAt.find(a.timeUs[i]);
            QVERIFY2(it != lastAt.end(), qPrintable(QString("time %1 missing from the raw replay").arg(a.timeUs[i])));
            ++compared;
            differing += a.bytes[i] != b.bytes[it->second];
        }
        // Rows can differ only where several events share one microsecond and torch's coalesced
        // file kept an intermediate row.
        QVERIFY2(differing * 100 <= compared, qPrintable(QString("%1 of %2 rows differ").arg(differing).arg(compared)));
        const CategorySummary sa = summarizeCategories(a), sb = summarizeCategories(b);
        QCOMPARE(sa.peakTotal, sb.peakTotal);
        QCOMPARE(sa.final, sb.final);
        // The categorised peak is within 0.1 % of the trace's own peak of Total Allocated (the
        // memory profiler sees tensors, the allocator counts rounded blocks).
        auto trace = loadSnapshot((profileDir() + "/trace.pt.trace.json.gz").toStdString());
        DeviceIndex index(*trace, 0);
        const double allocatorPeak = static_cast<double>(summarizeDevice(*trace, index, 1).traceTotals->peakAllocated);
        QVERIFY(qAbs(allocatorPeak - static_cast<double>(sa.peakTotal)) < allocatorPeak * 0.001);
    }

    void oldTracesGiveTheRunningSum()
    {
        // torch <= 1.9 wrote no addresses and no totals: the peak is the running sum of Bytes
        // (plus blocks the frees prove existed before), not thousands of invented blocks.
        QTemporaryDir dir;
        const QString old = dir.filePath("old.json");
        QString error;
        const QJsonObject facts =
            QJsonDocument::fromJson(runPythonTool("make_old_trace.py", {profileDir() + "/trace.pt.trace.json.gz", old}, &error)).object();
        QVERIFY2(!facts.isEmpty(), qPrintable(error));
        auto snapshot = loadSnapshot(old.toStdString());
        QVERIFY(snapshot->facts.noAddresses);
        QCOMPARE(snapshot->devices().size(), size_t(facts.size()));
        for (int device : snapshot->devices()) {
            const QJsonObject f = facts[QString::fromStdString(snapshot->deviceName(device))].toObject();
            DeviceIndex index(*snapshot, device);
            const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
            QCOMPARE(static_cast<qint64>(s.entries), f["events"].toInteger());
            QCOMPARE(static_cast<qint64>(s.peakActiveBytes), f["peak_bytes"].toInteger());
            QCOMPARE(static_cast<qint64>(index.initialBytes()), f["before_bytes"].toInteger());
            QVERIFY(!s.traceTotals);
            QCOMPARE(index.implicitEndCount(), size_t(0));
            QVERIFY(std::any_of(s.warnings.begin(), s.warnings.end(), [](const FileWarning &w) { return w.kind == "no_addresses"; }));
        }
    }

    // torch 1.9 files record_function ranges under cat "Operator" with the operators and writes
    // no Python functions' events: its ProfilerStep# and Optimizer.step# ranges are phases all
    // the same (a script's own, here the corpus trace's step0 … step2, cannot be told from an
    // operator there), and the trace has the modern trace's steps (it had none).
    void oldTracesKeepTheirSteps()
    {
        QTemporaryDir dir;
        const QString old = dir.filePath("old.json");
        QString error;
        runPythonTool("make_old_trace.py", {profileDir() + "/trace.pt.trace.json.gz", old}, &error);
        QVERIFY2(QFile::exists(old), qPrintable(error));
        const auto modern = loadSnapshot((profileDir() + "/trace.pt.trace.json.gz").toStdString());
        const auto legacy = loadSnapshot(old.toStdString());
        const int device = modern->devices().front();
        QCOMPARE(legacy->devices().front(), device);
        const DeviceIndex modernIndex(*modern, device), legacyIndex(*legacy, device);
        const DeviceSummary m = summarizeDevice(*modern, modernIndex, 5), l = summarizeDevice(*legacy, legacyIndex, 5);
        QVERIFY(m.steps.size() >= 2);
        QVERIFY(l.stepsFrom != StepSource::None);
        QCOMPARE(l.steps.size(), m.steps.size());
        QCOMPARE(wholeStepCount(l.steps), wholeStepCount(m.steps));
    }

    // The fast reader (simdjson over batches of the event list) against the reference (nlohmann's
    // SAX parser over everything), model for model: the corpus trace, its torch <= 1.9 form, and
    // generated traces of several batches, compact and pretty-printed, with strings holding
    // "}, {" and args nesting objects before more keys where a batch could be cut wrongly.
    void readersAgree_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("gzipped"); // the generated trace then read compressed, ahead of the scanner
        QTest::newRow("corpus") << QString() << QStringList() << false;
        QTest::newRow("torch 1.9") << QString("make_old_trace.py") << QStringList() << false;
        QTest::newRow("several batches") << QString("make_large_trace.py") << QStringList{"--bytes", "20000000", "--tricky"} << false;
        QTest::newRow("several batches, gzip") << QString("make_large_trace.py") << QStringList{"--bytes", "20000000", "--tricky"} << true;
        QTest::newRow("pretty-printed") << QString("make_large_trace.py") << QStringList{"--bytes", "10000000", "--indent", "2", "--tricky"} << false;
        // The fast reader skips what torch's first keys say it will not use: keys in another
        // order, and a second "name" or "cat" after the rest, are read as the reference does.
        QTest::newRow("keys reversed") << QString("make_large_trace.py") << QStringList{"--bytes", "1", "--keys-reversed"} << false;
        QTest::newRow("late keys") << QString("make_large_trace.py") << QStringList{"--bytes", "1", "--late-keys"} << false;
    }

    void readersAgree()
    {
        QFETCH(QString, tool);
        QFETCH(QStringList, args);
        QFETCH(bool, gzipped);
        QTemporaryDir dir;
        QString file = profileDir() + "/trace.pt.trace.json.gz";
        if (!tool.isEmpty()) {
            const QString out = dir.filePath("trace.json");
            QString error;
            runPythonTool(tool, QStringList{file, out} + args, &error);
            QVERIFY2(QFileInfo(out).size() > 0, qPrintable(error));
            file = out;
            if (gzipped) {
                QCOMPARE(QProcess::execute("gzip", {"-1", out}), 0);
                file = out + ".gz";
            }
        }
        const auto reference = decodeTraceWith(file, decodeProfilerTraceReference);
        // On this thread, and on workers (where a wrong cut is found only after later batches
        // were cut behind it).
        for (const unsigned workers : {0u, 1u, 3u}) {
            const auto fast = decodeTraceWith(file, [&](ByteReader &r, Snapshot &s) { decodeProfilerTrace(r, s, workers); });
            QVERIFY(!fast->traces.empty() && fast->traces.front().count() > 0);
            const QString different = difference(*fast, *reference);
            QVERIFY2(different.isEmpty(), qPrintable(QString("%1 workers: %2").arg(workers).arg(different)));
        }
    }

    // A trace recorded without Python stacks (with_stack=False) names only operators and
    // record_function ranges: AdamW's state, created under "Optimizer.step#AdamW.step", is still
    // optimizer state, the same bytes as with the stacks.
    void optimizerStateWithoutPythonStacks()
    {
        QJsonObject trace = QJsonDocument::fromJson(gunzip(profileDir() + "/trace.pt.trace.json.gz")).object();
        QJsonArray kept;
        for (const QJsonValue &e : trace["traceEvents"].toArray()) {
            if (e.toObject()["cat"].toString() != "python_function")
                kept.append(e);
        }
        QVERIFY(kept.size() < trace["traceEvents"].toArray().size());
        trace["traceEvents"] = kept;
        const QByteArray stripped = QJsonDocument(trace).toJson(QJsonDocument::Compact);
        auto withStacks = loadSnapshot((profileDir() + "/trace.pt.trace.json.gz").toStdString());
        auto without = loadSnapshotFromMemory(std::string_view(stripped.constData(), size_t(stripped.size())), "trace.json");
        auto atPeak = [](const Snapshot &snapshot) {
            DeviceIndex index(snapshot, 0);
            return summarizeDevice(snapshot, index, 1).categoryBytesAtPeak;
        };
        const auto a = atPeak(*withStacks), b = atPeak(*without);
        QVERIFY(a[size_t(Category::OptimizerState)] > 0);
        QCOMPARE(b[size_t(Category::OptimizerState)], a[size_t(Category::OptimizerState)]);
    }

    // "What would help" on a profiler trace: most of the peak is activations, and checkpointing
    // (which frees them) is offered with a saving; it once said nothing would save memory.
    void whatWouldHelpOnAProfilerTrace()
    {
        auto snapshot = loadSnapshot((profileDir() + "/trace.pt.trace.json.gz").toStdString());
        DeviceIndex index(*snapshot, 0);
        const AllocationCategories categories(*snapshot, index);
        const Advice advice = advise(*snapshot, index, categories, {});
        const uint64_t activations = advice.categories[size_t(Category::Activation)];
        QVERIFY2(activations * 2 > advice.peakBytes, qPrintable(QString("%1 of %2").arg(activations).arg(advice.peakBytes)));
        const auto checkpointing = std::find_if(advice.fixes.begin(), advice.fixes.end(), [](const Fix &f) { return f.technique == "checkpointing"; });
        QVERIFY(checkpointing != advice.fixes.end());
        QVERIFY(checkpointing->savesBytes > 0 && uint64_t(checkpointing->savesBytes) < activations + advice.categories[size_t(Category::Temporary)]);
        QVERIFY(advice.setup.optimizer.value == Optimizer::AdamW);
    }

    // The sink's sort of operators and memory events, which arrive as sorted runs, against
    // std::stable_sort: runs of every length (one element, none overlapping, fully interleaved,
    // more than the merge takes), the left or the right run the shorter, many equal keys whose
    // payload must keep its order.
    void sortedRunsMatchAStableSort()
    {
        struct Item {
            int key;
            int order;
        };
        const auto before = [](const Item &a, const Item &b) { return a.key < b.key; };
        std::mt19937 random(7);
        for (int round = 0; round < 400; ++round) {
            std::vector<Item> items;
            const int runs = round < 390 ? 1 + round % 40 : 1100 + round;
            const int spread = 1 + static_cast<int>(random() % 50);
            for (int r = 0; r < runs; ++r) {
                const int length = static_cast<int>(random() % (round % 3 == 0 ? 3 : 200));
                int key = static_cast<int>(random() % 100) + (round % 5 == 0 ? r * 1000 : 0);
                for (int i = 0; i < length; ++i) {
                    key += static_cast<int>(random() % static_cast<unsigned>(spread)) / 10;
                    items.push_back({key, static_cast<int>(items.size())});
                }
            }
            std::vector<Item> expected = items;
            std::stable_sort(expected.begin(), expected.end(), before);
            sortRuns(items.data(), items.data() + items.size(), before);
            for (size_t i = 0; i < items.size(); ++i) {
                QVERIFY2(items[i].key == expected[i].key && items[i].order == expected[i].order,
                         qPrintable(QString("round %1, item %2 of %3").arg(round).arg(i).arg(items.size())));
            }
        }
    }

    // [memory] events without their Bytes or Device Type (absent, or a string) are left out and
    // warned of, by both readers alike; before, one without a Device Type counted as CPU memory
    // and the file loaded with no warning.
    void malformedMemoryEventsWarn()
    {
        QJsonObject trace = QJsonDocument::fromJson(gunzip(profileDir() + "/trace.pt.trace.json.gz")).object();
        QJsonArray events = trace["traceEvents"].toArray();
        int broken = 0;
        for (qsizetype i = 0; i < events.size() && broken < 3; ++i) {
            QJsonObject e = events[i].toObject();
            if (e["name"].toString() != "[memory]")
                continue;
            QJsonObject args = e["args"].toObject();
            if (broken == 0)
                args.remove("Bytes");
            else if (broken == 1)
                args.remove("Device Type");
            else
                args["Device Type"] = "cuda";
            e["args"] = args;
            events[i] = e;
            ++broken;
        }
        trace["traceEvents"] = events;
        const QByteArray bytes = QJsonDocument(trace).toJson(QJsonDocument::Compact);
        QTemporaryDir dir;
        QFile out(dir.filePath("trace.json"));
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        out.close();
        using Decoder = void (*)(ByteReader &, Snapshot &);
        for (Decoder decoder : {Decoder(decodeProfilerTrace), Decoder(decodeProfilerTraceReference)}) {
            OpenedSource opened = openByteSource(out.fileName().toStdString());
            ByteReader reader(*opened.source, opened.fileSize, {});
            Snapshot snapshot;
            decoder(reader, snapshot);
            QCOMPARE(snapshot.facts.malformedMemoryEvents, uint64_t(3));
            const DeviceIndex index(snapshot, snapshot.devices().front());
            const DeviceSummary s = summarizeDevice(snapshot, index, 1);
            QVERIFY(std::any_of(s.warnings.begin(), s.warnings.end(), [](const FileWarning &w) { return w.kind == "malformed_memory_events" && w.count == 3; }));
        }
        // The unbroken trace has none.
        const auto good = loadSnapshot((profileDir() + "/trace.pt.trace.json.gz").toStdString());
        QCOMPARE(good->facts.malformedMemoryEvents, uint64_t(0));
    }

    // record_shapes' "Input type" of every matrix product and convolution, counted against
    // operator_dtypes.py's own nesting of the same events: the corpus's autocast run (GPT-2,
    // bf16 autocast as its README says) and ResNet-50 traces under autocast and cast to bf16.
    void operatorDtypesAgreeWithTheirOracle_data()
    {
        QTest::addColumn<QStringList>("resnetFlags"); // empty: the corpus trace
        QTest::addColumn<bool>("autocast");
        QTest::addColumn<int>("weightBytes");
        QTest::newRow("corpus gpt2 autocast") << QStringList{} << true << 4;
        QTest::newRow("resnet50 autocast") << QStringList{"--amp", "--record-shapes"} << true << 4;
        QTest::newRow("resnet50 cast to bf16") << QStringList{"--record-shapes"} << false << 2;
    }

    void operatorDtypesAgreeWithTheirOracle()
    {
        QFETCH(QStringList, resnetFlags);
        QFETCH(bool, autocast);
        QFETCH(int, weightBytes);
        QTemporaryDir dir;
        QString file = profileDir() + "/trace.pt.trace.json.gz", error;
        if (!resnetFlags.isEmpty()) {
            file = dir.filePath("resnet.pt.trace.json");
            QVERIFY2(!runPythonTool("make_resnet_trace.py", QStringList{file, "32", "2"} + resnetFlags, &error).isEmpty(), qPrintable(error));
        }
        const QJsonObject oracle = QJsonDocument::fromJson(runPythonTool("operator_dtypes.py", {file}, &error)).object();
        QVERIFY2(!oracle.isEmpty(), qPrintable(error));
        const auto snapshot = loadSnapshot(file.toStdString());
        const OperatorDtypes &ops = snapshot->facts.operatorDtypes;
        QCOMPARE(qint64(ops.fp32), oracle["fp32"].toInteger());
        QCOMPARE(qint64(ops.bf16), oracle["bf16"].toInteger());
        QCOMPARE(qint64(ops.fp16), oracle["fp16"].toInteger());
        QCOMPARE(qint64(ops.cast), oracle["cast"].toInteger());
        QVERIFY(ops.total() > 0);
        const DeviceIndex index(*snapshot, snapshot->devices().front());
        const AllocationCategories categories(*snapshot, index);
        const Advice advice = advise(*snapshot, index, categories, {});
        QCOMPARE(advice.setup.autocast.value, std::optional<bool>(autocast));
        QCOMPARE(advice.setup.autocast.confidence, Confidence::High);
        QVERIFY2(advice.setup.autocast.how.find("recorded input types") != std::string::npos, advice.setup.autocast.how.c_str());
        QCOMPARE(advice.setup.input.precision, autocast ? Precision::AmpBf16 : weightBytes == 2 ? Precision::Bf16 : Precision::Fp32);
    }

    // The input types as both readers take them from odd lists: the first non-empty string at the
    // list's top level, whatever comes before or around it; anything else is no type.
    void inputTypesReadAlikeByBothReaders_data()
    {
        QTest::addColumn<QByteArray>("types");
        QTest::addColumn<int>("fp32"); // products counted on float inputs
        QTest::newRow("plain") << QByteArray(R"(["float", "float"])") << 1;
        QTest::newRow("empty first") << QByteArray(R"(["", "ScalarList", "float"])") << 0;
        QTest::newRow("numbers first") << QByteArray(R"([1, null, "float"])") << 1;
        QTest::newRow("nested list first") << QByteArray(R"([["c10::Half"], "float"])") << 1;
        QTest::newRow("object first") << QByteArray(R"([{"a": "c10::Half"}, "float"])") << 1;
        QTest::newRow("a string, not a list") << QByteArray(R"("float")") << 0;
        QTest::newRow("empty list") << QByteArray("[]") << 0;
        QTest::newRow("escaped") << QByteArray(R"(["float"])") << 1;
    }

    void inputTypesReadAlikeByBothReaders()
    {
        QFETCH(QByteArray, types);
        QFETCH(int, fp32);
        const QByteArray trace = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"Input Dims": [[2, 2]], "Input type": )" +
                                 types + R"(}}, {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12, "args": {"Device Type": 1, "Device Id": 0, "Addr": 4096, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 2097152}}]})";
        QTemporaryDir dir;
        const QString file = dir.filePath("odd.json");
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(trace) == trace.size());
        out.close();
        const auto reference = decodeTraceWith(file, decodeProfilerTraceReference);
        const auto fast = decodeTraceWith(file, [](ByteReader &r, Snapshot &s) { decodeProfilerTrace(r, s); });
        QCOMPARE(qint64(reference->facts.operatorDtypes.fp32), qint64(fp32));
        QCOMPARE(fast->facts.operatorDtypes, reference->facts.operatorDtypes);
        QVERIFY2(difference(*fast, *reference).isEmpty(), qPrintable(difference(*fast, *reference)));
    }

    void badTraces()
    {
        const QByteArray good = gunzip(profileDir() + "/trace.pt.trace.json.gz");
        QVERIFY(good.size() > 1000000);
        for (qsizetype cut : {good.size() / 10, good.size() / 2, good.size() - 2}) {
            try {
                loadSnapshotFromMemory(std::string_view(good.constData(), static_cast<size_t>(cut)), "trace.json");
                QFAIL("a truncated trace was accepted");
            } catch (const LoadError &e) {
                QVERIFY2(std::string(e.what()).rfind("trace.json: byte ", 0) == 0, e.what());
            }
        }
        // A compressed trace cut short fails where the decompression finds it, with the same
        // message read ahead on a thread of its own (workers) as read by the scanner (none).
        QTemporaryDir dir;
        QFile whole(profileDir() + "/trace.pt.trace.json.gz");
        QVERIFY(whole.open(QIODevice::ReadOnly));
        QFile cutShort(dir.filePath("cut.json.gz"));
        QVERIFY(cutShort.open(QIODevice::WriteOnly) && cutShort.write(whole.read(whole.size() * 3 / 4)) > 0);
        cutShort.close();
        const std::string alone = fastReadFailure(cutShort.fileName(), 0);
        QVERIFY2(alone.find("at ") == 0 && alone.find("truncated") != std::string::npos, alone.c_str());
        QCOMPARE(fastReadFailure(cutShort.fileName(), 1), alone);
        QCOMPARE(fastReadFailure(cutShort.fileName(), 3), alone);
        // A load cancelled is cancelled, whichever thread reads.
        QCOMPARE(fastReadFailure(whole.fileName(), 0, true), std::string("cancelled"));
        QCOMPARE(fastReadFailure(whole.fileName(), 1, true), std::string("cancelled"));
        for (const char *bad : {"{\"traceEvents\": 5}", "{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"[memory]\", "
                                                        "\"ts\": 1, \"args\": {\"Device Type\": 1, \"Device Id\": 9999, \"Bytes\": 5}}]}",
                                "[[1, 2], 3]", "[[1, 2, 3, 4], [5]]", "{\"traceEvents\": [1, 2"}) {
            QVERIFY_THROWS_EXCEPTION(LoadError, loadSnapshotFromMemory(bad, "bad.json"));
        }
    }
};

QTEST_GUILESS_MAIN(TestProfiles)
#include "tst_profiles.moc"
