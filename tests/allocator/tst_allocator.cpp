// The caching allocator's state at any event: expandable segments as torch and MemoryViz see
// them (exact figures for small cases), and every corpus file against an independent port of
// MemoryViz's MemoryView (tests/tools/memoryviz_state.py, which reads the file with CPython).
#include "CorpusFiles.h"
#include "ExpandableTwin.h"
#include "IdPrinting.h"
#include "SyntheticSnapshot.h"
#include "index/AllocatorState.h"
#include "index/DeviceIndex.h"
#include "figures/FileHealth.h"
#include "figures/PoolShares.h"
#include "figures/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"
#include "replay/Replay.h"
#include "views/SegmentTimeline.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace memlens;

namespace {

constexpr uint64_t MiB = 1ull << 20;
constexpr uint64_t kBase = 0x7f2000000000ull;

// The kinds of what a file's health says does not add up. The synthetic files here record no
// stacks: that is how they were recorded (the one `no_stacks` warning), not a fault.
QStringList inconsistencies(const FileHealth &health)
{
    QStringList kinds;
    for (const FileWarning &w : health.warnings)
        kinds << QString::fromStdString(w.kind);
    kinds.removeOne("no_stacks");
    return kinds;
}

SynthEntry entry(const char *action, uint64_t addr, uint64_t size, int64_t t)
{
    return SynthEntry{action, addr, size, t, 0, -1};
}

// The smallest case: map 2 MiB + 2 MiB, a 3 MiB block, unmap the upper 1 MiB. The final
// snapshot holds what torch reports then: one 3 MiB expandable segment with the block.
SynthSnapshot smallestExpandable(bool truncated)
{
    SynthSnapshot s;
    s.allocConf = "expandable_segments:True";
    SynthSegment seg;
    seg.address = kBase;
    seg.expandable = true;
    seg.blocks = {{3 * MiB, 3 * MiB, "active_allocated", -1}};
    s.segments = {seg};
    std::vector<SynthEntry> trace;
    if (!truncated) {
        trace.push_back(entry("segment_map", kBase, 2 * MiB, 1));
        trace.push_back(entry("segment_map", kBase + 2 * MiB, 2 * MiB, 2));
    }
    trace.push_back(entry("alloc", kBase, 3 * MiB, 3));
    trace.push_back(entry("segment_unmap", kBase + 3 * MiB, MiB, 4));
    s.traces = {trace};
    return s;
}

AllocatorFigures figuresAt(const Snapshot &snapshot, const DeviceIndex &index, TracePoint at)
{
    return summarizePoint(snapshot, index, at, 0).allocator;
}

void compareFigures(const AllocatorFigures &got, const QJsonObject &want, const QString &where)
{
    const auto check = [&](const char *key, uint64_t value) {
        if (value != static_cast<uint64_t>(want[key].toDouble()))
            QFAIL(qPrintable(QStringLiteral("%1: %2 is %3, MemoryViz's logic gives %4").arg(where, key).arg(value).arg(static_cast<uint64_t>(want[key].toDouble()))));
    };
    check("segments", got.segments);
    check("reserved_bytes", got.reserved);
    check("allocated_bytes", got.allocated);
    check("requested_bytes", got.requested);
    check("free_bytes", got.free);
    check("largest_free_bytes", got.largestFree);
}

// Our figures at each event against the oracle's, for one file and device.
void compareWithMemoryViz(const QString &file, const Snapshot &snapshot, const DeviceIndex &index, const std::vector<TracePoint> &points)
{
    QStringList args{file, QString::number(index.device())};
    for (TracePoint at : points)
        args << (at.isStart() ? QStringLiteral("-1") : QString::number(at.lastEntry().index()));
    QString error;
    const QJsonArray oracle = QJsonDocument::fromJson(runPythonTool("memoryviz_state.py", args, &error)).array();
    QVERIFY2(oracle.size() == static_cast<int>(points.size()), qPrintable(error));
    for (size_t i = 0; i < points.size(); ++i)
        compareFigures(figuresAt(snapshot, index, points[i]), oracle[static_cast<int>(i)].toObject(),
                       QStringLiteral("%1 device %2 after event %3").arg(QFileInfo(file).fileName()).arg(index.device()).arg(static_cast<int>(points[i].lastEntry().index())));
}

} // namespace

class TestAllocator : public QObject {
    Q_OBJECT

private slots:
    void expandableSmallestCase()
    {
        auto snapshot = loadSnapshotFromMemory(smallestExpandable(false).pickle(), "expandable.pickle");
        DeviceIndex index(*snapshot, 0);
        const AllocatorFigures before = figuresAt(*snapshot, index, TracePoint::start());
        QCOMPARE(before.segments, 0u);
        QCOMPARE(before.reserved, 0u);
        const AllocatorFigures mapped = figuresAt(*snapshot, index, TracePoint::after(EventId(1)));
        QCOMPARE(mapped.segments, 1u); // two adjacent mapped ranges are one segment
        QCOMPARE(mapped.reserved, 4 * MiB);
        QCOMPARE(mapped.free, 4 * MiB);
        const AllocatorFigures used = figuresAt(*snapshot, index, TracePoint::after(EventId(2)));
        QCOMPARE(used.segments, 1u);
        QCOMPARE(used.allocated, 3 * MiB);
        QCOMPARE(used.requested, 3 * MiB);
        QCOMPARE(used.free, MiB);
        QCOMPARE(used.largestFree, MiB);
        const AllocatorFigures end = figuresAt(*snapshot, index, TracePoint::after(EventId(3)));
        QCOMPARE(end.segments, 1u);
        QCOMPARE(end.reserved, 3 * MiB);
        QCOMPARE(end.allocated, 3 * MiB);
        QCOMPARE(end.free, 0u);
        QCOMPARE(end.largestFree, 0u);
        QCOMPARE(index.startReservedBytes(), 0u);
        QCOMPARE(index.peakReservedBytes(), 4 * MiB);
        QCOMPARE(index.reservedAt(TracePoint::after(EventId(3))), 3 * MiB);
        const AllocatorState state = allocatorStateAt(*snapshot, index, TracePoint::after(EventId(3)));
        QCOMPARE(state.roundingWaste(), 0u);
        QVERIFY(state.segments.front().expandable);
        const FileHealth health = fileHealth(*snapshot, index);
        QVERIFY2(!health.coverage.truncated, health.coverage.evidence.empty() ? "" : health.coverage.evidence.front().c_str());
        QCOMPARE(inconsistencies(health), QStringList());
    }

    void expandableTruncatedStartsFromTheFinalState()
    {
        // Without the maps the 4 MiB were mapped before the trace: that is real evidence.
        auto snapshot = loadSnapshotFromMemory(smallestExpandable(true).pickle(), "expandable-cut.pickle");
        DeviceIndex index(*snapshot, 0);
        const AllocatorFigures before = figuresAt(*snapshot, index, TracePoint::start());
        QCOMPARE(before.segments, 1u);
        QCOMPARE(before.reserved, 4 * MiB);
        QCOMPARE(index.startReservedBytes(), 4 * MiB);
        const AllocatorFigures end = figuresAt(*snapshot, index, TracePoint::after(EventId(1)));
        QCOMPARE(end.reserved, 3 * MiB);
        QCOMPARE(end.segments, 1u);
        const FileHealth health = fileHealth(*snapshot, index);
        QVERIFY(health.coverage.truncated);
        QCOMPARE(inconsistencies(health), QStringList());
    }

    void unmapSplitsAndMapJoins()
    {
        // Three pages mapped as one 6 MiB segment; unmapping the middle one splits it in two,
        // mapping it again joins all three; a block in each outer page throughout.
        SynthSnapshot s;
        SynthSegment seg;
        seg.address = kBase;
        seg.expandable = true;
        seg.blocks = {{MiB, MiB, "active_allocated", -1}, {4 * MiB, 0, "inactive", -1}, {MiB, MiB, "active_allocated", -1}};
        s.segments = {seg};
        s.traces = {{entry("segment_map", kBase, 2 * MiB, 1), entry("segment_map", kBase + 2 * MiB, 2 * MiB, 2),
                     entry("segment_map", kBase + 4 * MiB, 2 * MiB, 3), entry("alloc", kBase, MiB, 4),
                     entry("alloc", kBase + 5 * MiB, MiB, 5), entry("segment_unmap", kBase + 2 * MiB, 2 * MiB, 6),
                     entry("segment_map", kBase + 2 * MiB, 2 * MiB, 7)}};
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "split.pickle");
        DeviceIndex index(*snapshot, 0);
        const AllocatorFigures whole = figuresAt(*snapshot, index, TracePoint::after(EventId(4)));
        QCOMPARE(whole.segments, 1u);
        QCOMPARE(whole.reserved, 6 * MiB);
        QCOMPARE(whole.largestFree, 4 * MiB);
        const AllocatorFigures split = figuresAt(*snapshot, index, TracePoint::after(EventId(5)));
        QCOMPARE(split.segments, 2u);
        QCOMPARE(split.reserved, 4 * MiB);
        QCOMPARE(split.allocated, 2 * MiB);
        QCOMPARE(split.largestFree, MiB);
        const AllocatorFigures joined = figuresAt(*snapshot, index, TracePoint::after(EventId(6)));
        QCOMPARE(joined.segments, 1u);
        QCOMPARE(joined.reserved, 6 * MiB);
        QCOMPARE(joined.largestFree, 4 * MiB);
        QVERIFY(!fileHealth(*snapshot, index).coverage.truncated);
        QTemporaryDir dir;
        const QString path = dir.filePath("split.pickle");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(s.pickle()));
        f.close();
        compareWithMemoryViz(path, *snapshot, index, {TracePoint::start(), TracePoint::afterFirst(1), TracePoint::afterFirst(2), TracePoint::afterFirst(3), TracePoint::afterFirst(4), TracePoint::afterFirst(5), TracePoint::afterFirst(6), TracePoint::afterFirst(7)});
    }

    void segmentsThatDisagreeWithTheTraceAreReported()
    {
        // The trace frees a segment the final snapshot still holds.
        SynthSnapshot s;
        SynthSegment seg;
        seg.address = kBase;
        seg.blocks = {{20 * MiB, 0, "inactive", -1}};
        s.segments = {seg};
        s.traces = {{entry("segment_alloc", kBase, 20 * MiB, 1), entry("segment_free", kBase, 20 * MiB, 2)}};
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "disagree.pickle");
        DeviceIndex index(*snapshot, 0);
        const FileHealth health = fileHealth(*snapshot, index);
        QVERIFY(std::any_of(health.warnings.begin(), health.warnings.end(),
                            [](const FileWarning &w) { return w.kind == std::string("segments_disagree_with_trace"); }));
    }

    // A block freed by the program but still in use on another stream (active_pending_free) is
    // held: the end state's allocated bytes, the allocator at the end and the pools at the end
    // count it alike (the summary's top said 24.9 GB, its --at end 25.5 GB, its pools 3.00 GiB
    // beside 2.44 GiB, on a file with 597 MB pending).
    void oneEndStateWithPendingFrees()
    {
        SynthSnapshot s;
        SynthSegment seg;
        seg.address = kBase;
        seg.blocks = {{4 * MiB, 4 * MiB, "active_allocated", -1}, {8 * MiB, 8 * MiB - 512, "active_pending_free", -1}, {8 * MiB, 0, "inactive", -1}};
        s.segments = {seg};
        s.traces = {{entry("segment_alloc", kBase, 20 * MiB, 1), entry("alloc", kBase, 4 * MiB, 2), entry("alloc", kBase + 4 * MiB, 8 * MiB - 512, 3),
                     entry("free_requested", kBase + 4 * MiB, 8 * MiB - 512, 4)}};
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "pending.pickle");
        DeviceIndex index(*snapshot, 0);
        const FinalState final = finalState(*snapshot, 0);
        const AllocatorState atEnd = allocatorStateAt(*snapshot, index, index.end());
        QCOMPARE(final.allocated, 12 * MiB);
        QCOMPARE(final.requested, 12 * MiB - 512);
        QCOMPARE(atEnd.allocated, final.allocated);
        QCOMPARE(atEnd.requested, final.requested);
        const std::vector<PoolShare> pools = poolSharesAtEnd(*snapshot, index);
        QCOMPARE(pools.size(), size_t(1));
        QCOMPARE(pools[0].allocated, final.allocated);
        QCOMPARE(inconsistencies(fileHealth(*snapshot, index)), QStringList());
    }

    void awaitingFreeBlocksAreActive()
    {
        // torch's type annotations name the pending state `active_awaiting_free`.
        SynthSnapshot s;
        SynthSegment seg;
        seg.address = kBase;
        seg.blocks = {{4 * MiB, 4 * MiB - 100, "active_awaiting_free", -1}, {16 * MiB, 0, "inactive", -1}};
        s.segments = {seg};
        s.traces = {{}};
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "awaiting.pickle");
        QCOMPARE(snapshot->blocks.front().state, BlockState::ActivePendingFree);
        DeviceIndex index(*snapshot, 0);
        QCOMPARE(index.initialBytes(), 4 * MiB - 100);
        const AllocatorState state = allocatorStateAt(*snapshot, index, TracePoint::start());
        QCOMPARE(state.allocated, 4 * MiB);
        QCOMPARE(state.free, 16 * MiB);
    }

    // Stacked in allocation order, the segments alive after each segment_alloc and segment_free
    // lie bottom to top exactly as MemoryViz's segment timeline stacks them
    // (tests/tools/memoryviz_segment_order.py): on a run that frees segments (the OOM run's
    // empty_cache), one with segments from before its trace (cut as a full ring buffer) and one
    // with two streams.
    void allocationOrderIsMemoryViz()
    {
        QTemporaryDir dir;
        QString error;
        const QString cut = cutGpt2Trace(dir.path(), &error);
        QVERIFY2(!cut.isEmpty(), qPrintable(error));
        for (const QString &file : {corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle", cut,
                                    corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle"}) {
            auto snapshot = loadSnapshot(file.toStdString());
            const DeviceIndex index(*snapshot, 0);
            const QJsonArray oracle = QJsonDocument::fromJson(runPythonTool("memoryviz_segment_order.py", {file, "0"}, &error)).array();
            QVERIFY2(!oracle.isEmpty(), qPrintable(error));
            size_t compared = 0, moved = 0;
            for (const QJsonValue &v : oracle) {
                const EventId e(uint32_t(v["index"].toInt()));
                const SegmentTimelineFrame frame = layoutSegmentTimeline(index, e, e, 1, SegmentOrder::Allocation);
                std::vector<std::pair<uint64_t, const SegmentBand *>> alive;
                for (const SegmentBand &b : frame.bands) {
                    if (index.segmentLife(b.life).aliveAt(TracePoint::after(e)))
                        alive.emplace_back(b.bottom.front(), &b);
                }
                std::sort(alive.begin(), alive.end());
                const QJsonArray want = v["stack"].toArray();
                QVERIFY2(alive.size() == size_t(want.size()), qPrintable(QString("%1 after %2: %3 segments, MemoryViz %4").arg(file).arg(e.index()).arg(alive.size()).arg(want.size())));
                for (size_t k = 0; k < alive.size(); ++k) {
                    const SegmentLife &life = index.segmentLife(alive[k].second->life);
                    QVERIFY2(life.addr == uint64_t(want[int(k)][0].toDouble()) && life.size == uint64_t(want[int(k)][1].toDouble()),
                             qPrintable(QString("%1 after %2: band %3 is 0x%4").arg(file).arg(e.index()).arg(k).arg(life.addr, 0, 16)));
                }
                // Unlike by address: there a band moves up when a segment appears below it.
                const SegmentTimelineFrame byAddress = layoutSegmentTimeline(index, e, e, 1, SegmentOrder::Address);
                for (size_t k = 0; k < alive.size() && !moved; ++k) {
                    for (const SegmentBand &b : byAddress.bands)
                        moved += b.life == alive[k].second->life && b.bottom.front() != alive[k].first;
                }
                ++compared;
            }
            QVERIFY(compared >= 1);
            if (!file.contains("streams"))
                QVERIFY2(moved, qPrintable(file + ": the orders never differ, the test shows nothing"));
        }
    }

    // Segments over time against MemoryViz's own replay of the segments: at a column's last
    // event, the bands alive there are its segments, their sizes its reserved bytes and their
    // used bytes its requested bytes; a column stacks what was alive at any point of it.
    void segmentTimelineAgreesWithMemoryViz()
    {
        // A trace cut as a full ring buffer leaves blocks and segments from before its first entry.
        QTemporaryDir dir;
        QString cutError;
        const QString cut = cutGpt2Trace(dir.path(), &cutError);
        QVERIFY2(!cut.isEmpty(), qPrintable(cutError));
        // Each single-stream corpus run's expandable-segments twin too: mapped ranges grow page by
        // page, and every map ends one segment life and starts the larger one.
        QStringList twins;
        for (const char *run : {"frag_varlen_gpt2/snapshot.pickle.zst", "gpt2_fp32_adamw/snapshot.pickle", "resnet50_bf16_sgd/snapshot.pickle",
                                "tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz"}) {
            auto source = loadSnapshot((corpusDir() + "/snapshots/" + run).toStdString());
            const DeviceIndex sourceIndex(*source, 0);
            const QString twin = dir.filePath(QString(run).section('/', 0, 0) + ".expandable.pickle");
            QFile out(twin);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(expandableTwin(*source, sourceIndex).pickle()));
            out.close();
            twins << twin;
            // The view's "at most … reserved" is the most the allocator held, as the replay
            // under the same setting predicts it.
            auto twinSnapshot = loadSnapshot(twin.toStdString());
            const DeviceIndex twinIndex(*twinSnapshot, 0);
            const SegmentTimelineFrame whole = layoutSegmentTimeline(twinIndex, EventId(0), EventId(uint32_t(twinIndex.eventCount() - 1)), 1600, SegmentOrder::Address);
            QVERIFY2(*std::max_element(whole.stacked.begin(), whole.stacked.end()) == twinIndex.peakReservedBytes(),
                     qPrintable(QStringLiteral("%1: the view stacks %2, the allocator held at most %3").arg(twin).arg(*std::max_element(whole.stacked.begin(), whole.stacked.end())).arg(twinIndex.peakReservedBytes())));
            ReplayOptions options;
            options.config.expandableSegments = true;
            QCOMPARE(twinIndex.peakReservedBytes(), replayTrace(*source, sourceIndex, options).predicted.peakReservedBytes);
        }
        for (const QString &name : QStringList{QStringLiteral("frag_varlen_gpt2/snapshot.pickle.zst"), QStringLiteral("oom_gpt2_medium_6gib/oom_snapshot.pickle"),
                                               QStringLiteral("streams_pending_free/snapshot.pickle"), cut} + twins) {
            const QString file = name == cut || twins.contains(name) ? name : corpusDir() + "/snapshots/" + name;
            if (!QFileInfo::exists(file))
                QFAIL(qPrintable(file + " is missing"));
            auto snapshot = loadSnapshot(file.toStdString());
            DeviceIndex index(*snapshot, 0);
            const auto n = static_cast<uint32_t>(index.eventCount());
            std::vector<EventId> events{EventId(n / 5), EventId(n / 3), EventId(n / 2), EventId(n - 1), index.peak().lastEntry()};
            QStringList args{file, "0"};
            for (EventId e : events)
                args << QString::number(e.index());
            QString error;
            const QJsonArray oracle = QJsonDocument::fromJson(runPythonTool("memoryviz_state.py", args, &error)).array();
            QVERIFY2(oracle.size() == static_cast<int>(events.size()), qPrintable(error));
            for (size_t i = 0; i < events.size(); ++i) {
                for (SegmentOrder order : {SegmentOrder::Address, SegmentOrder::Size}) {
                    const SegmentTimelineFrame frame = layoutSegmentTimeline(index, events[i] > EventId(40) ? EventId(events[i].index() - 40) : EventId(0), events[i], 3, order);
                    uint64_t segments = 0, reserved = 0, used = 0;
                    for (const SegmentBand &b : frame.bands) {
                        if (b.endColumn() != 3 || !index.segmentLife(b.life).aliveAt(TracePoint::after(events[i])))
                            continue;
                        ++segments;
                        reserved += b.size;
                        used += b.used.back();
                    }
                    const QJsonObject want = oracle[static_cast<int>(i)].toObject();
                    const QString where = QStringLiteral("%1 after event %2").arg(name).arg(events[i].index());
                    QVERIFY2(segments == static_cast<uint64_t>(want["segments"].toDouble()), qPrintable(where + " segments"));
                    QVERIFY2(reserved == static_cast<uint64_t>(want["reserved_bytes"].toDouble()), qPrintable(where + " reserved"));
                    QVERIFY2(used == static_cast<uint64_t>(want["requested_bytes"].toDouble()),
                             qPrintable(where + QStringLiteral(" used %1, MemoryViz requested %2").arg(used).arg(want["requested_bytes"].toDouble())));
                    // The segments alive at the column's end stack from 0 without gaps; one that
                    // ended inside the column lies above them or over memory one of them held, and
                    // the column is as high as what it draws.
                    std::vector<std::pair<uint64_t, uint64_t>> spans;
                    uint64_t top = 0;
                    for (const SegmentBand &b : frame.bands) {
                        if (b.endColumn() != 3)
                            continue;
                        top = std::max(top, b.bottom.back() + b.size);
                        if (index.segmentLife(b.life).aliveAt(TracePoint::after(events[i])))
                            spans.emplace_back(b.bottom.back(), b.bottom.back() + b.size);
                    }
                    std::sort(spans.begin(), spans.end());
                    for (size_t k = 0; k < spans.size(); ++k)
                        QCOMPARE(spans[k].first, k ? spans[k - 1].second : uint64_t(0));
                    QCOMPARE(frame.stacked.back(), top);
                }
            }
        }
    }

    void corpusAgreesWithMemoryViz()
    {
        for (const QString &file : corpusSnapshots()) {
            auto snapshot = loadSnapshot(file.toStdString());
            for (int device : snapshot->devices()) {
                DeviceIndex index(*snapshot, device);
                const auto n = static_cast<uint32_t>(index.eventCount());
                if (n == 0)
                    continue;
                std::vector<TracePoint> points{TracePoint::start(), TracePoint::afterFirst(n / 3 + 1), TracePoint::afterFirst(n / 2 + 1), index.end()};
                if (!index.peak().isStart())
                    points.push_back(index.peak());
                for (EventId e : index.oomEvents())
                    points.push_back(TracePoint::after(e));
                compareWithMemoryViz(file, *snapshot, index, points);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestAllocator)
#include "tst_allocator.moc"
