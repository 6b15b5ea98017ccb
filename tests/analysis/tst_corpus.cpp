// The real snapshots in tests/corpus: what memlens computes must agree with what torch
// measured during each run (truth.json), with torch's own text views, and with CPython's
// pickle module reading the same file.
#include "CorpusFiles.h"
#include "figures/AllocationCategories.h"
#include "index/AllocatorState.h"
#include "views/CallTree.h"
#include "index/DeviceIndex.h"
#include "index/FrameFilter.h"
#include "figures/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <cmath>
#include <map>
#include <set>

using namespace memlens;

namespace {

// torch.cuda._memory_viz._format_size, to compare with its printed totals.
QString torchFormatSize(double num)
{
    for (const char *unit : {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi"}) {
        if (std::fabs(num) < 1024.0)
            return QString::asprintf("%3.1f%sB", num, unit);
        num /= 1024.0;
    }
    return QString::asprintf("%.1fYiB", num);
}

QString statsValue(const QString &stats, const QString &key)
{
    QRegularExpression re("^" + key + ": (\\S+)", QRegularExpression::MultilineOption);
    return re.match(stats).captured(1);
}

} // namespace

class TestCorpus : public QObject {
    Q_OBJECT

private slots:
    // C++ stacks run through CPython's interpreter and libc: with noise hidden, the call tree at
    // the peak of the C++-stacks run has no row for a CPython API function, a libc start-up
    // frame or a frame without a name, and still has torch's own C++ frames.
    void cppStacksHideInterpreterFrames()
    {
        auto snapshot = loadSnapshot((corpusDir() + "/snapshots/tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz").toStdString());
        DeviceIndex index(*snapshot, 0);
        CallTreeOptions options;
        options.hideNoise = true;
        const CallTree tree(*snapshot, index, index.liveAt(index.peak()), options);
        static const QRegularExpression interpreter(R"((^|:)(_?Py[A-Z_]\w*|__libc_\w*|_start)\b)");
        size_t torchFrames = 0;
        for (uint32_t i = 1; i < tree.size(); ++i) {
            const QString label = QString::fromStdString(tree.label(CallTreeNodeId(i)));
            QVERIFY2(!label.trimmed().isEmpty() && !label.endsWith(':'), qPrintable("a blank row: '" + label + "'"));
            QVERIFY2(!interpreter.match(label).hasMatch(), qPrintable(label));
            torchFrames += label.contains("at::") || label.contains("c10::");
        }
        QVERIFY(torchFrames > 0);
        QVERIFY(!isNoiseFrame("PyTorchHelper", "model.py")); // a Python function of that name is the user's
        QVERIFY(isNoiseFrame("PyMethod_New", "??"));
        QVERIFY(isNoiseFrame("", "??"));
    }

    void initTestCase()
    {
        QVERIFY2(QDir(corpusDir()).exists(), qPrintable("corpus not found at " + corpusDir()));
        QVERIFY(corpusSnapshots().size() >= 7);
    }

    void truth_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : corpusSnapshots())
            QTest::newRow(qPrintable(QDir(corpusDir()).relativeFilePath(f))) << f;
    }

    // peak reserved exactly, peak active within 1 % below torch's max_memory_allocated.
    void truth()
    {
        QFETCH(QString, file);
        const QJsonObject truth = readJsonObject(QFileInfo(file).dir().filePath("truth.json"));
        QVERIFY(!truth.isEmpty());
        auto snapshot = loadSnapshot(file.toStdString());
        QCOMPARE(snapshot->devices(), std::vector<int>{0});
        DeviceIndex index(*snapshot, 0);
        const auto peakAllocated = static_cast<uint64_t>(truth["peak_allocated"].toDouble());
        const auto peakReserved = static_cast<uint64_t>(truth["peak_reserved"].toDouble());
        QCOMPARE(index.peakReservedBytes(), peakReserved);
        QVERIFY2(index.peakActiveBytes() <= peakAllocated,
                 qPrintable(QString("peak active %1 above torch's %2").arg(index.peakActiveBytes()).arg(peakAllocated)));
        QVERIFY2(index.peakActiveBytes() >= peakAllocated * 0.99,
                 qPrintable(QString("peak active %1 more than 1% below torch's %2").arg(index.peakActiveBytes()).arg(peakAllocated)));
        // The peak event is an alloc and the running total there is the peak.
        QVERIFY(!index.peak().isStart());
        QCOMPARE(index.events().action[index.peak().lastEntry().index()], Action::Alloc);
        QCOMPARE(index.activeAt(index.peak()), index.peakActiveBytes());
        // Live blocks at the peak add up to the active bytes there.
        uint64_t sum = 0;
        for (AllocationId id : index.liveAt(index.peak()))
            sum += index.detail(id).size;
        QCOMPARE(sum, index.peakActiveBytes());
        // Replaying the trace ends with what the final snapshot holds: its active blocks'
        // requested bytes. And those blocks' rounded sizes are what torch's memory_allocated()
        // reported at the end (except in the file dumped from inside the OOM handler).
        const FinalState final = finalState(*snapshot, 0);
        QCOMPARE(index.activeAt(TracePoint::after(EventId(static_cast<uint32_t>(index.eventCount() - 1)))), final.requested);
        if (!file.endsWith("/oom_snapshot.pickle"))
            QCOMPARE(final.allocated, static_cast<uint64_t>(truth["end_allocated"].toDouble()));
    }

    void torchStats_data() { truth_data(); }

    // Final-state totals as torch's `_memory_viz stats` prints them.
    void torchStats()
    {
        QFETCH(QString, file);
        QString statsPath = file;
        statsPath.replace(QRegularExpression("\\.pickle(\\.gz|\\.zst)?$"), ".torch_stats.txt");
        QFile f(statsPath);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(statsPath));
        const QString stats = QString::fromUtf8(f.readAll());
        auto snapshot = loadSnapshot(file.toStdString());
        const FinalState s = finalState(*snapshot, 0);
        QCOMPARE(QString::number(s.segments), statsValue(stats, "segments"));
        QCOMPARE(torchFormatSize(s.reserved), statsValue(stats, "total_reserved"));
        // torch counts requested sizes of active_allocated blocks as allocated, the rest as free.
        QCOMPARE(torchFormatSize(s.requested), statsValue(stats, "total_allocated"));
        QCOMPARE(torchFormatSize(s.reserved - s.requested), statsValue(stats, "total_free"));
        // Segment and block sums are consistent with the blocks' own sizes.
        uint64_t blockBytes = 0;
        for (const Block &b : snapshot->blocks)
            blockBytes += b.size;
        QCOMPARE(blockBytes, s.reserved);
    }

    void torchTrace_data() { truth_data(); }

    // Entry count and OOM lines of torch's `_memory_viz trace`.
    void torchTrace()
    {
        QFETCH(QString, file);
        QString tracePath = file;
        tracePath.replace(QRegularExpression("\\.pickle(\\.gz|\\.zst)?$"), ".torch_trace.txt");
        QFile f(tracePath);
        if (!f.exists())
            QSKIP("no torch trace view for this file in the corpus");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        auto snapshot = loadSnapshot(file.toStdString());
        QRegularExpression entries("^(\\d+) entries$", QRegularExpression::MultilineOption);
        QCOMPARE(QString::number(snapshot->traces.at(0).count()), entries.match(text).captured(1));
        const int oomLines = static_cast<int>(text.count("raise OutOfMemoryError"));
        DeviceIndex index(*snapshot, 0);
        QCOMPARE(static_cast<int>(index.oomEvents().size()), oomLines);
    }

    void pythonOracle_data() { truth_data(); }

    // CPython's pickle module reading the same file: counts, sums, times, distinct stacks.
    void pythonOracle()
    {
        QFETCH(QString, file);
        QString error;
        const QJsonObject facts = QJsonDocument::fromJson(runPythonTool("snapshot_facts.py", {file}, &error)).object();
        QVERIFY2(!facts.isEmpty(), qPrintable(error));
        auto snapshot = loadSnapshot(file.toStdString());
        QCOMPARE(static_cast<qint64>(snapshot->segments.size()), facts["segments"].toInteger());
        QCOMPARE(static_cast<qint64>(snapshot->blocks.size()), facts["blocks"].toInteger());
        QCOMPARE(static_cast<qint64>(snapshot->phaseMarks.size()), facts["phase_marks"].toInteger());
        const QJsonObject dev = facts["devices"].toArray().at(0).toObject();
        const EventTable &ev = snapshot->traces.at(0);
        QCOMPARE(static_cast<qint64>(ev.count()), dev["entries"].toInteger());
        const QJsonObject actions = dev["actions"].toObject();
        for (auto it = actions.begin(); it != actions.end(); ++it) {
            const Action a = actionFromName(it.key().toStdString());
            qint64 count = 0;
            for (size_t i = 0; i < ev.count(); ++i)
                count += ev.action[i] == a;
            QCOMPARE(count, it.value().toInteger());
        }
        uint64_t allocBytes = 0;
        std::set<StackId> stacks;
        for (size_t i = 0; i < ev.count(); ++i) {
            if (ev.action[i] == Action::Alloc)
                allocBytes += ev.size[i];
            stacks.insert(ev.stack[i]);
        }
        QCOMPARE(static_cast<qint64>(allocBytes), dev["alloc_bytes"].toInteger());
        QCOMPARE(static_cast<qint64>(stacks.size()), dev["distinct_stacks"].toInteger());
        QCOMPARE(ev.timeUs[0], dev["first_time_us"].toInteger());
        QCOMPARE(ev.timeUs[ev.count() - 1], dev["last_time_us"].toInteger());
    }

    void replayReproducesFinalState_data() { truth_data(); }

    // Replaying the trace from the reconstructed start ends exactly in the final snapshot.
    void replayReproducesFinalState()
    {
        QFETCH(QString, file);
        auto snapshot = loadSnapshot(file.toStdString());
        DeviceIndex index(*snapshot, 0);
        const AllocatorState state = allocatorStateAt(*snapshot, index, index.end());
        std::map<uint64_t, const StateSegment *> replayed;
        for (const StateSegment &s : state.segments)
            replayed[s.addr] = &s;
        QCOMPARE(replayed.size(), snapshot->segments.size());
        uint64_t inactive = 0;
        for (const Segment &seg : snapshot->segments) {
            QVERIFY2(replayed.count(seg.address), qPrintable(QString("segment 0x%1 missing").arg(seg.address, 0, 16)));
            const StateSegment &r = *replayed[seg.address];
            QCOMPARE(r.size, seg.totalSize);
            QCOMPARE(r.stream, seg.stream);
            QCOMPARE(r.pool, seg.pool);
            std::map<uint64_t, const StateBlock *> blocks;
            for (const StateBlock &b : r.blocks) {
                if (b.state != BlockState::Inactive)
                    blocks[b.addr] = &b;
            }
            size_t live = 0;
            for (uint32_t i = seg.firstBlock; i < seg.firstBlock + seg.blockCount; ++i) {
                const Block &b = snapshot->blocks[i];
                if (b.state == BlockState::Inactive) {
                    inactive += b.size;
                    continue;
                }
                ++live;
                QVERIFY2(blocks.count(b.address), qPrintable(QString("block 0x%1 missing").arg(b.address, 0, 16)));
                QCOMPARE(blocks[b.address]->requested, b.requestedSize);
                QCOMPARE(blocks[b.address]->state, b.state);
                QCOMPARE(blocks[b.address]->size, b.size);
            }
            QCOMPARE(blocks.size(), live);
        }
        // Free space is what the live blocks leave.
        QCOMPARE(state.free, inactive);
        // At the peak, the blocks hold exactly the timeline's active bytes.
        const AllocatorState atPeak = allocatorStateAt(*snapshot, index, index.peak());
        QCOMPARE(atPeak.requested, index.peakActiveBytes());
        QCOMPARE(atPeak.reserved, index.reservedAt(index.peak()));
    }

    void categoriesAddUp_data() { truth_data(); }

    void categoriesAddUp()
    {
        QFETCH(QString, file);
        auto snapshot = loadSnapshot(file.toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        uint64_t sum = 0;
        for (uint64_t b : s.categoryBytesAtPeak)
            sum += b;
        QCOMPARE(sum, s.peakActiveBytes);
        // The running totals agree with the live set everywhere.
        const AllocationCategories categories(*snapshot, index);
        for (uint32_t e = 0; e < index.eventCount(); e += 97)
            QCOMPARE(categories.totalsAt(TracePoint::after(EventId(e))), categories.bytesAt(index, TracePoint::after(EventId(e))));
        QCOMPARE(categories.totalsAt(index.peak()), s.categoryBytesAtPeak);
    }

    void callTrees_data() { truth_data(); }

    // Both trees hold exactly what is live; folded stacks add up to it.
    void callTrees()
    {
        QFETCH(QString, file);
        auto snapshot = loadSnapshot(file.toStdString());
        DeviceIndex index(*snapshot, 0);
        const auto live = index.liveAt(index.peak());
        for (bool bottomUp : {false, true}) {
            CallTreeOptions options;
            options.bottomUp = bottomUp;
            const CallTree tree(*snapshot, index, live, options);
            QCOMPARE(tree.root().bytes, index.peakActiveBytes());
            QCOMPARE(tree.root().count, uint64_t(live.size()));
            uint64_t children = 0;
            for (CallTreeNodeId c : tree.root().children)
                children += tree.node(c).bytes;
            QCOMPARE(children, tree.root().bytes);
            uint64_t folded = 0;
            for (const QString &line : QString::fromStdString(tree.folded()).split('\n', Qt::SkipEmptyParts))
                folded += line.section(' ', -1).toULongLong();
            QCOMPARE(folded, tree.root().bytes);
        }
    }

    // Bottom-up at GPT-2's peak: the loss (cross_entropy on the logits) is among the top sites.
    void gpt2LossAtPeak()
    {
        auto snapshot = loadSnapshot((corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        CallTreeOptions options;
        options.bottomUp = true;
        const CallTree tree(*snapshot, index, index.liveAt(index.peak()), options);
        bool found = false;
        for (size_t i = 0; i < std::min<size_t>(5, tree.root().children.size()); ++i)
            found = found || tree.label(tree.root().children[i]).find("cross_entropy") != std::string::npos;
        QVERIFY(found);
        // Comparing a snapshot with itself shows no differences.
        QVERIFY(diffBySite(*snapshot, index, index.peak(), *snapshot, index, index.peak()).empty());
    }

    // GPT-2 small: parameters as the model has them, AdamW's two states per parameter.
    void gpt2Categories()
    {
        const QString dir = corpusDir() + "/snapshots/gpt2_fp32_adamw";
        const QJsonObject truth = readJsonObject(dir + "/truth.json");
        auto snapshot = loadSnapshot((dir + "/snapshot.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        const AllocationCategories categories(*snapshot, index);
        const auto atEnd = categories.bytesAt(index, index.end());
        const double paramBytes = truth["params"].toDouble() * 4;
        const double parameters = double(atEnd[size_t(Category::Parameter)]);
        QVERIFY2(parameters >= paramBytes && parameters <= paramBytes * 1.02, qPrintable(QString::number(parameters)));
        const double states = double(atEnd[size_t(Category::OptimizerState)]);
        QVERIFY2(qAbs(states - 2 * parameters) <= 0.02 * 2 * parameters, qPrintable(QString::number(states)));
        QCOMPARE(atEnd[size_t(Category::Activation)], uint64_t(0));
        // At the peak (the loss), activations dominate.
        const auto atPeak = categories.bytesAt(index, index.peak());
        QVERIFY(atPeak[size_t(Category::Activation)] > atPeak[size_t(Category::Parameter)] * 5);
    }

    // The OOM file, dumped during the optimizer step: gradients equal the parameters.
    void oomCategories()
    {
        auto snapshot = loadSnapshot((corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        const auto bytes = AllocationCategories(*snapshot, index).bytesAt(index, index.end());
        QCOMPARE(bytes[size_t(Category::Gradient)], bytes[size_t(Category::Parameter)]);
        QCOMPARE(bytes[size_t(Category::OptimizerState)], 2 * bytes[size_t(Category::Parameter)]);
    }

    // The OOM file: 12 MiB requested while ~120 MiB sat free in holes of at most 8 MiB.
    void oomDiagnosis()
    {
        const QString dir = corpusDir() + "/snapshots/oom_gpt2_medium_6gib";
        const QJsonObject truth = readJsonObject(dir + "/truth.json");
        auto snapshot = loadSnapshot((dir + "/oom_snapshot.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        const EventId oom = index.oomEvents().at(0);
        const OomDiagnosis d = diagnoseOom(index, oom, allocatorStateAt(*snapshot, index, TracePoint::after(oom)));
        QCOMPARE(static_cast<qint64>(d.requested), truth["oom_observer"].toObject()["alloc"].toInteger());
        QCOMPARE(d.verdict(), std::string("fragmentation"));
        QVERIFY(d.largestFreeBlock < d.requested);
        // torch's message: "120.14 MiB is reserved by PyTorch but unallocated".
        const QString message = truth["oom_message"].toString();
        QRegularExpression re("([0-9.]+) MiB is reserved by PyTorch but unallocated");
        const double torchMiB = re.match(message).captured(1).toDouble();
        QVERIFY(torchMiB > 100);
        QVERIFY2(qAbs(d.reservedFree / 1048576.0 - torchMiB) < 0.01,
                 qPrintable(QString("%1 MiB vs torch %2 MiB").arg(d.reservedFree / 1048576.0).arg(torchMiB)));
        QVERIFY(d.explanation().find("expandable_segments") != std::string::npos);
    }

    // The OOM file: its `oom` entry with what the OOM observer saw.
    void oomEntry()
    {
        const QString dir = corpusDir() + "/snapshots/oom_gpt2_medium_6gib";
        const QJsonObject observer = readJsonObject(dir + "/truth.json")["oom_observer"].toObject();
        auto snapshot = loadSnapshot((dir + "/oom_snapshot.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 10);
        QCOMPARE(s.ooms.size(), size_t(1));
        QCOMPARE(static_cast<qint64>(s.ooms[0].requested), observer["alloc"].toInteger());
        QCOMPARE(static_cast<qint64>(s.ooms[0].deviceFree), observer["device_free"].toInteger());
    }

    // The same content in every other layout gives the same model.
    void layouts_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("streams") << corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle";
        QTest::newRow("gpt2") << corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
    }

    void layouts()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        QString error;
        runPythonTool("rewrite_snapshot.py", {file, dir.path()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        auto original = loadSnapshot(file.toStdString());
        DeviceIndex ref(*original, 0);
        const DeviceSummary expected = summarizeDevice(*original, ref, 20);
        for (const QString variant : {"p2.pickle", "p5.pickle", "snapshot.json", "snapshot.json.gz"}) {
            auto other = loadSnapshot(dir.filePath(variant).toStdString());
            DeviceIndex index(*other, 0);
            const DeviceSummary got = summarizeDevice(*other, index, 20);
            QCOMPARE(got.entries, expected.entries);
            QCOMPARE(got.peakActiveBytes, expected.peakActiveBytes);
            QCOMPARE(got.peakIndex, expected.peakIndex);
            QCOMPARE(got.peakReservedBytes, expected.peakReservedBytes);
            QCOMPARE(got.final.requested, expected.final.requested);
            QCOMPARE(got.phases.size(), expected.phases.size());
            QCOMPARE(got.topLiveAtPeak.size(), expected.topLiveAtPeak.size());
            for (size_t i = 0; i < got.topLiveAtPeak.size(); ++i) {
                QCOMPARE(got.topLiveAtPeak[i].addr, expected.topLiveAtPeak[i].addr);
                QCOMPARE(other->stacks.at(got.topLiveAtPeak[i].stack).size(),
                         original->stacks.at(expected.topLiveAtPeak[i].stack).size());
            }
            QCOMPARE(other->facts.format, variant.contains("json") ? FileFormat::Json : FileFormat::Pickle);
        }
        // Legacy: a bare list of segments whose blocks keep their stack in history[0].
        auto legacy = loadSnapshot(dir.filePath("legacy_segments.pickle").toStdString());
        QVERIFY(legacy->facts.legacySegmentList);
        QVERIFY(legacy->facts.legacyBlockHistory);
        const FinalState a = finalState(*original, 0), b = finalState(*legacy, 0);
        QCOMPARE(b.reserved, a.reserved);
        QCOMPARE(b.requested, a.requested);
        QCOMPARE(b.blocks, a.blocks);
        DeviceIndex legacyIndex(*legacy, 0);
        QCOMPARE(legacyIndex.initialBytes(), a.requested); // no trace: every live block predates it
    }
};

QTEST_GUILESS_MAIN(TestCorpus)
#include "tst_corpus.moc"
