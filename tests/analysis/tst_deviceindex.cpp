// DeviceIndex against a brute-force replay: a random workload with blocks alive before the
// trace, pending frees and segment churn, spanning several live-set checkpoints.
#include "CorpusFiles.h"
#include <random>
#include <unordered_map>
#include <QTemporaryDir>
#include "IdPrinting.h"
#include "SyntheticSnapshot.h"
#include "index/ActiveBytes.h"
#include "model/AddressMap.h"
#include "index/DeviceIndex.h"
#include "index/SegmentLives.h"
#include "index/Moment.h"
#include "figures/SnapshotSummary.h"
#include "views/TimelineLayout.h"
#include "decode/SnapshotLoader.h"

#include <QRandomGenerator>
#include <QTest>
#include <map>
#include <set>

using namespace memlens;

namespace {

struct Oracle {
    std::vector<uint64_t> active;   // after each event
    std::vector<uint64_t> reserved; // after each event
    std::map<uint32_t, std::map<uint64_t, std::pair<uint64_t, bool>>> liveAt; // e → addr → (size, pending)
    uint64_t initialBytes = 0;
    uint64_t startReserved = 0;
};

constexpr uint64_t kBase = 0x7f0000000000ull;
constexpr uint64_t kSlot = 1 << 20;

struct Workload {
    SynthSnapshot snap;
    Oracle oracle;
};

Workload makeWorkload(uint32_t seed, int events)
{
    QRandomGenerator rng(seed);
    Workload w;
    w.snap.stacks = {{{"alloc_here", "/src/model.py", 10}, {"forward", "/src/model.py", 20}},
                     {{"step", "/src/optim.py", 5}}};
    std::map<uint64_t, std::pair<uint64_t, bool>> live; // addr → (requested, pending)
    std::map<uint64_t, uint64_t> slotsUsed;             // addr → requested (for the final segment)
    uint64_t next = kBase;
    // Blocks alive before the trace.
    for (int i = 0; i < 40; ++i) {
        const uint64_t size = 512 * (1 + rng.bounded(1000));
        live[next] = {size, false};
        w.oracle.initialBytes += size;
        next += kSlot;
    }
    std::vector<SynthEntry> trace;
    std::vector<uint64_t> pending;
    uint64_t active = w.oracle.initialBytes;
    const uint64_t sideSegment = 0x7e0000000000ull;
    bool sideLive = false;
    std::set<uint32_t> sample = {0, 1, DeviceIndex::kCheckpointEvery - 1, DeviceIndex::kCheckpointEvery,
                                 DeviceIndex::kCheckpointEvery + 1, 2 * DeviceIndex::kCheckpointEvery - 1};
    for (int i = 0; i < 60; ++i)
        sample.insert(rng.bounded(quint32(events)));
    uint64_t reservedDelta = 0;
    std::vector<int64_t> reservedTrace;
    int64_t reservedNow = 0;
    auto record = [&](SynthEntry e) {
        e.timeUs = 1000 + static_cast<int64_t>(trace.size());
        if (e.action == "alloc")
            active += e.size;
        if (e.action == "segment_alloc")
            reservedNow += static_cast<int64_t>(e.size);
        if (e.action == "segment_free")
            reservedNow -= static_cast<int64_t>(e.size);
        trace.push_back(e);
        w.oracle.active.push_back(active);
        reservedTrace.push_back(reservedNow);
        const auto index = static_cast<uint32_t>(trace.size() - 1);
        if (sample.count(index))
            w.oracle.liveAt[index] = live;
    };
    while (static_cast<int>(trace.size()) < events) {
        const int r = rng.bounded(100);
        if (r < 45 || live.empty()) {
            const uint64_t size = 1 + rng.bounded(quint32(kSlot - 1));
            live[next] = {size, false};
            record({"alloc", next, size, 0, 0, static_cast<int>(rng.bounded(3)) - 1});
            next += kSlot;
        } else if (r < 90) {
            auto it = live.begin();
            std::advance(it, rng.bounded(static_cast<quint32>(live.size())));
            if (it->second.second)
                continue;
            const uint64_t addr = it->first, size = it->second.first;
            it->second.second = true;
            record({"free_requested", addr, size, 0, 0, 1});
            if (rng.bounded(4) == 0) {
                pending.push_back(addr);
            } else {
                live.erase(addr);
                active -= size;
                record({"free_completed", addr, size, 0, 0, 1});
            }
        } else if (r < 95 && !pending.empty()) {
            const uint64_t addr = pending.back();
            pending.pop_back();
            const uint64_t size = live[addr].first;
            live.erase(addr);
            active -= size;
            record({"free_completed", addr, size, 0, 0, -1});
        } else {
            record({sideLive ? "segment_free" : "segment_alloc", sideSegment, 20 << 20, 0, 0, -1});
            sideLive = !sideLive;
        }
    }
    // The final state: one segment tiling every slot handed out, the live ones in use.
    SynthSegment seg;
    seg.address = kBase;
    for (uint64_t addr = kBase; addr < next; addr += kSlot) {
        auto it = live.find(addr);
        if (it == live.end())
            seg.blocks.push_back({kSlot, 0, "inactive", -1});
        else
            seg.blocks.push_back({kSlot, it->second.first, it->second.second ? "active_pending_free" : "active_allocated", 0});
    }
    w.snap.segments.push_back(seg);
    if (sideLive) {
        SynthSegment side;
        side.address = sideSegment;
        side.blocks.push_back({20 << 20, 0, "inactive", -1});
        w.snap.segments.push_back(side);
    }
    w.snap.traces.push_back(trace);
    // Reserved: the big segment predates the trace.
    w.oracle.startReserved = next - kBase;
    for (int64_t r : reservedTrace)
        w.oracle.reserved.push_back(w.oracle.startReserved + static_cast<uint64_t>(r));
    (void)reservedDelta;
    return w;
}

} // namespace

class TestDeviceIndex : public QObject {
    Q_OBJECT

private slots:
    // The pairing's address map against std::unordered_map over a long run of sets and erases
    // on few live addresses (as a trace's: each one freed soon after), with addresses that
    // share their home slot: every find after every step agrees, and erasing an entry in the
    // middle of a probe run keeps the ones after it reachable.
    void addressMapAgreesWithAStandardMap()
    {
        std::mt19937_64 random(7);
        AddressMap map;
        std::unordered_map<uint64_t, uint32_t> expected;
        std::vector<uint64_t> addresses;
        for (int i = 0; i < 600; ++i)
            addresses.push_back(0x7f0000000000ull + (random() % 4096) * 512);
        for (uint32_t step = 0; step < 400000; ++step) {
            const uint64_t addr = addresses[random() % addresses.size()];
            const uint64_t op = random() % 3;
            if (op < 2) {
                map.set(addr, step);
                expected[addr] = step;
            } else {
                map.erase(addr);
                expected.erase(addr);
            }
            if (step % 97 == 0) {
                for (const uint64_t a : addresses) {
                    const auto it = expected.find(a);
                    QCOMPARE(map.find(a), it == expected.end() ? AddressMap::kNone : it->second);
                }
                QCOMPARE(map.size(), expected.size());
            }
        }
    }

    // The compact active-bytes column gives back every value pushed: a plain array of them is
    // the reference. Blocks that span more than 4 GiB (a 40 GB tensor), values below zero and
    // at the int64 edges, a last block cut short.
    void activeBytesKeepEveryValue()
    {
        std::vector<int64_t> values;
        QRandomGenerator rng(7);
        int64_t v = 0;
        for (int i = 0; i < 5000; ++i) {
            if (i % 700 == 3)
                v += int64_t(40) << 30; // a block spanning 40 GiB
            else if (i % 700 == 9)
                v -= int64_t(40) << 30;
            else
                v += int64_t(rng.bounded(1 << 20)) - (1 << 19);
            values.push_back(v);
        }
        values.insert(values.end(), {INT64_MIN, INT64_MAX, -1, 0});
        ActiveBytes column;
        column.reserve(values.size());
        for (int64_t x : values)
            column.push(x);
        column.finish();
        for (size_t i = 0; i < values.size(); ++i)
            QCOMPARE(column[i], values[i]);
    }

    // Ids of different tables do not mix, nor pass for bare numbers; none orders after every
    // index (readers rely on `id.index() >= count` for none), and kNever before none. Moments are
    // a type of their own: the start first, an entry's "after" past its "before", never last.
    void idsAreTheirOwnTypes()
    {
        static_assert(!std::is_convertible_v<EventId, AllocationId> && !std::is_convertible_v<AllocationId, EventId>);
        static_assert(!std::is_convertible_v<SegmentLifeId, SegmentId> && !std::is_convertible_v<FrameId, uint32_t>);
        static_assert(!std::is_convertible_v<uint32_t, EventId> && sizeof(EventId) == sizeof(uint32_t));
        QVERIFY(AllocationId().isNone() && !AllocationId(0).isNone());
        QVERIFY(AllocationId(UINT32_MAX - 1) < AllocationId::none());
        QVERIFY(EventId(0) < kNever && kNever < EventId::none());
        static_assert(!std::is_convertible_v<EventId, TracePoint> && !std::is_convertible_v<uint32_t, TracePoint>);
        QVERIFY(TracePoint() == TracePoint::start() && TracePoint::before(EventId(0)) == TracePoint::start());
        QVERIFY(TracePoint::start() < TracePoint::after(EventId(0)) && TracePoint::after(EventId(0)) == TracePoint::before(EventId(1)));
        QVERIFY(TracePoint::after(kNever) == TracePoint::never() && TracePoint::after(EventId(7)) < TracePoint::never());
        QVERIFY(TracePoint::start().lastEntry().isNone() && TracePoint::afterFirst(3).lastEntry() == EventId(2));
        QCOMPARE(std::hash<FrameId>()(FrameId(7)), std::hash<uint32_t>()(7));
    }

    void againstReplay_data()
    {
        QTest::addColumn<uint>("seed");
        QTest::addColumn<int>("events");
        QTest::newRow("short") << 1u << 500;
        QTest::newRow("checkpoints") << 7u << 3 * int(DeviceIndex::kCheckpointEvery) + 123;
        QTest::newRow("exact multiple") << 11u << 2 * int(DeviceIndex::kCheckpointEvery);
    }

    void againstReplay()
    {
        QFETCH(uint, seed);
        QFETCH(int, events);
        const Workload w = makeWorkload(seed, events);
        const std::string bytes = w.snap.pickle();
        auto snapshot = loadSnapshotFromMemory(bytes, "synthetic.pickle");
        DeviceIndex index(*snapshot, 0);
        QCOMPARE(index.eventCount(), w.oracle.active.size());
        QCOMPARE(index.initialBytes(), w.oracle.initialBytes);
        QCOMPARE(index.startReservedBytes(), w.oracle.startReserved);
        uint64_t peak = w.oracle.initialBytes;
        TracePoint peakAt = TracePoint::start();
        for (uint32_t e = 0; e < index.eventCount(); ++e) {
            QCOMPARE(index.activeAt(TracePoint::after(EventId(e))), w.oracle.active[e]);
            QCOMPARE(index.reservedAt(TracePoint::after(EventId(e))), w.oracle.reserved[e]);
            if (w.oracle.active[e] > peak) {
                peak = w.oracle.active[e];
                peakAt = TracePoint::after(EventId(e));
            }
        }
        QCOMPARE(index.peakActiveBytes(), peak);
        QCOMPARE(index.peak(), peakAt);
        QCOMPARE(index.peakReservedBytes(), *std::max_element(w.oracle.reserved.begin(), w.oracle.reserved.end()));
        for (const auto &[e, expected] : w.oracle.liveAt) {
            std::map<uint64_t, std::pair<uint64_t, bool>> got;
            for (const BlockAt &b : index.blocksAt(TracePoint::after(EventId(e)))) {
                const AllocationDetail d = index.detail(b.allocation);
                got[d.addr] = {d.size, b.pendingFree};
            }
            QVERIFY2(got == expected, qPrintable(QString("live set differs after event %1").arg(e)));
        }
        // Before the first event: exactly the blocks that predate the trace.
        uint64_t before = 0;
        for (AllocationId id : index.liveAt(TracePoint::start()))
            before += index.detail(id).size;
        QCOMPARE(before, w.oracle.initialBytes);
    }

    // The index's count of each action and its OOM entries against a plain walk of the action
    // column, built and from kept parts; a trace long enough that the parts are checked (and
    // counted) in two halves, with OOM and segment entries in both.
    void actionCountsAreTheEntriesOfEachAction()
    {
        SynthSnapshot synth;
        synth.traces.resize(1);
        const uint32_t rounds = static_cast<uint32_t>(DeviceIndex::kFaultInElsewhereFrom / 3) + 500;
        for (uint32_t k = 0; k < rounds; ++k) {
            const uint64_t addr = kBase + (k % 512) * kSlot;
            synth.traces[0].push_back({"alloc", addr, 512, 3 * k});
            synth.traces[0].push_back({k % 977 == 5 ? "oom" : "free_requested", addr, 512, 3 * k + 1});
            synth.traces[0].push_back({k % 1301 == 7 ? "segment_alloc" : "free_completed", addr, 512, 3 * k + 2});
        }
        const auto snapshot = loadSnapshotFromMemory(synth.pickle(), "counts.pickle");
        const EventTable &ev = snapshot->traces.at(0);
        QVERIFY(ev.count() >= DeviceIndex::kFaultInElsewhereFrom);
        std::vector<EventId> ooms;
        DeviceIndex::ActionCounts expected{};
        for (uint32_t i = 0; i < ev.count(); ++i) {
            ++expected[static_cast<size_t>(ev.action[i])];
            if (ev.action[i] == Action::Oom)
                ooms.push_back(EventId(i));
        }
        QVERIFY(ooms.size() > 100 && ooms.back().index() > ev.count() / 2);
        QVERIFY(expected[size_t(Action::SegmentAlloc)] > 100);
        const DeviceIndex built(*snapshot, 0);
        const DeviceIndex kept(*snapshot, 0, built.parts());
        for (const DeviceIndex *index : {&built, &kept}) {
            QCOMPARE(index->actionCounts(), expected);
            QCOMPARE(index->oomEvents(), ooms);
            QCOMPARE(summarizeBasics(*snapshot, *index).actions, expected);
        }
        // What this long a trace has built on the other core beside the pairing: the segment
        // lives and the totals, as the entries give them.
        const SegmentLives lives = buildSegmentLives(*snapshot, 0, ev);
        QCOMPARE(built.segmentLives().size(), lives.lives.size());
        QCOMPARE(built.reservedChanges().size(), lives.reservedChanges.size());
        uint64_t peak = built.initialBytes();
        for (uint32_t i = 0; i < ev.count(); ++i)
            peak = std::max(peak, built.activeAt(TracePoint::after(EventId(i))));
        QCOMPARE(built.peakActiveBytes(), peak);
        for (uint32_t i = 0; i < ev.count(); ++i)
            QCOMPARE(built.allocationOfEvent(EventId(i)).isNone(), ev.action[i] != Action::Alloc && ev.action[i] != Action::FreeRequested && ev.action[i] != Action::FreeCompleted);
        // A file without OOMs has none, and a corpus file's counts come out the same way.
        const auto oomFree = loadSnapshot((corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst").toStdString());
        const DeviceIndex plain(*oomFree, 0);
        QVERIFY(plain.oomEvents().empty());
        QCOMPARE(plain.actionCounts()[size_t(Action::Alloc)],
                 uint64_t(std::count(oomFree->traces[0].action.begin(), oomFree->traces[0].action.end(), Action::Alloc)));
    }

    void allocWithoutFree()
    {
        // skip_actions can drop frees: an alloc at a live address ends the earlier block there.
        SynthSnapshot s;
        s.traces = {{{"alloc", 4096, 100, 0, 0, -1}, {"alloc", 4096, 50, 0, 0, -1}, {"alloc", 8192, 10, 0, 0, -1}}};
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "skip.pickle");
        DeviceIndex index(*snapshot, 0);
        QCOMPARE(index.activeAt(TracePoint::after(EventId(0))), uint64_t(100));
        QCOMPARE(index.activeAt(TracePoint::after(EventId(1))), uint64_t(50));
        QCOMPARE(index.activeAt(TracePoint::after(EventId(2))), uint64_t(60));
        QCOMPARE(index.liveAt(TracePoint::after(EventId(2))).size(), size_t(2));
        QCOMPARE(index.peakActiveBytes(), uint64_t(100));
        QCOMPARE(index.peak(), TracePoint::after(EventId(0)));
    }

    // The moments a user names: parsed once, resolved against the device, errors that say why.
    void momentsNameEvents()
    {
        SynthSnapshot s;
        s.traces = {{{"alloc", 4096, 100, 0, 0, -1}, {"oom", 123, 999, 0, 0, -1}}};
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "spec.pickle");
        DeviceIndex index(*snapshot, 0);
        QCOMPARE(pointOf(index, *Moment::parse("peak")), TracePoint::after(EventId(0)));
        QCOMPARE(pointOf(index, *Moment::parse("oom")), TracePoint::after(EventId(1)));
        QCOMPARE(pointOf(index, *Moment::parse("end")), TracePoint::after(EventId(1)));
        QCOMPARE(pointOf(index, *Moment::parse("1")), TracePoint::after(EventId(1)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pointOf(index, *Moment::parse("2")));
        for (const char *bad : {"x", "", "-1", "1.5", "peak ", "99999999999"})
            QVERIFY2(!Moment::parse(bad), bad);
        for (const Moment m : {Moment::peak(), Moment::oom(), Moment::end(), Moment::at(EventId(42))})
            QCOMPARE(Moment::parse(m.text()), std::optional<Moment>(m));
        const DeviceSummary summary = summarizeDevice(*snapshot, index, 5);
        QCOMPARE(summary.ooms.size(), size_t(1));
        QCOMPARE(summary.ooms[0].deviceFree, uint64_t(123));
        QCOMPARE(summary.ooms[0].requested, uint64_t(999));
    }

    // The timeline's level of detail against brute force on a real trace, at several zooms.
    void timelineLayout_data()
    {
        QTest::addColumn<double>("from");
        QTest::addColumn<double>("to");
        QTest::addColumn<int>("columns");
        QTest::newRow("whole trace") << 0.0 << 1.0 << 800;
        QTest::newRow("middle tenth") << 0.45 << 0.55 << 600;
        QTest::newRow("fewer events than columns") << 0.5 << 0.501 << 700;
    }

    void timelineLayout()
    {
        QFETCH(double, from);
        QFETCH(double, to);
        QFETCH(int, columns);
        auto snapshot = loadSnapshot((corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        TimelineLayout layout(index);
        const auto n = static_cast<uint32_t>(index.eventCount());
        const auto first = static_cast<uint32_t>(from * (n - 1)), last = static_cast<uint32_t>(to * (n - 1));
        const size_t maxBands = 64;
        const TimelineFrame frame = layout.layout(EventId(first), EventId(last), columns, maxBands);
        QCOMPARE(frame.total.size(), size_t(columns));
        // Each column shows its highest point, and the bands add up to it.
        const double span = last - first + 1.0;
        for (int c = 0; c < columns; ++c) {
            const auto lo = first + static_cast<uint32_t>(span * c / columns);
            const auto next = first + static_cast<uint32_t>(span * (c + 1) / columns);
            const auto hi = std::max(lo, next - 1);
            uint64_t best = 0;
            for (uint32_t e = lo; e <= std::min(hi, n - 1); ++e)
                best = std::max(best, index.activeAt(TracePoint::after(EventId(e))));
            QCOMPARE(frame.total[c], best);
            uint64_t sum = frame.otherTop[c];
            const EventId e = frame.columnEvent[c];
            QVERIFY(e >= EventId(lo) && e <= EventId(std::min(hi, n - 1)));
            for (const TimelineBand &b : frame.bands) {
                // Alive exactly where the column's event lies in the allocation's lifetime.
                const Allocation &a = index.allocation(b.allocation);
                const bool lives = (a.allocEvent.isNone() || a.allocEvent <= e) && (a.freeCompleted == kNever || e < a.freeCompleted);
                QCOMPARE(b.alive(static_cast<size_t>(c)), lives);
                QCOMPARE(b.size, index.detail(b.allocation).size);
                if (lives) {
                    QCOMPARE(b.bottomAt(static_cast<size_t>(c)), sum);
                    sum += b.size;
                }
            }
            QCOMPARE(sum, frame.total[c]);
        }
        checkWholeSizeClasses(index, frame, first, last, maxBands);
    }

    // The bands are the largest allocations alive anywhere in [first, last], in whole size
    // classes: all of them above the size at which the budget of maxBands runs out, none at it.
    static void checkWholeSizeClasses(const DeviceIndex &index, const TimelineFrame &frame, uint32_t first, uint32_t last, size_t maxBands)
    {
        const auto n = static_cast<uint32_t>(index.eventCount());
        std::vector<uint64_t> sizes;
        for (uint32_t i = 0; i < index.allocationCount(); ++i) {
            const AllocationId id(i);
            const Allocation &a = index.allocation(id);
            const uint32_t start = a.allocEvent.isNone() ? 0 : a.allocEvent.index();
            if (a.freeCompleted == EventId(0))
                continue;
            const uint32_t end = a.freeCompleted == kNever ? n - 1 : a.freeCompleted.index() - 1;
            if (start <= last && end >= first)
                sizes.push_back(index.detail(id).size);
        }
        std::sort(sizes.rbegin(), sizes.rend());
        std::vector<uint64_t> expected = sizes;
        if (sizes.size() > maxBands)
            expected.erase(std::find(expected.begin(), expected.end(), sizes[maxBands]), expected.end());
        std::vector<uint64_t> drawn;
        for (const TimelineBand &b : frame.bands)
            drawn.push_back(index.detail(b.allocation).size);
        std::sort(drawn.rbegin(), drawn.rend());
        QVERIFY(drawn.size() <= maxBands);
        QCOMPARE(drawn, expected);
    }

    // Forty identical steps under a budget of 30 bands: each step's four 64 MiB activations
    // make one size class of 160, too many to draw. Drawing the first 29 by id coloured the
    // first seven steps and left the rest grey, as if the run changed; the class is folded
    // whole, and every step looks the same at any zoom.
    void identicalStepsLookTheSame()
    {
        SynthSnapshot s;
        s.traces.resize(1);
        uint64_t addr = 1 << 30;
        int64_t t = 0;
        s.traces[0].push_back({"alloc", addr, 512ull << 20, t++, 0, -1}); // the weights, kept
        for (int step = 0; step < 40; ++step) {
            std::vector<std::pair<uint64_t, uint64_t>> live;
            for (int i = 0; i < 4; ++i)
                live.emplace_back(addr += 1ull << 30, 64ull << 20);
            live.emplace_back(addr += 1ull << 30, (100ull + uint64_t(step)) << 20); // one of a kind each step
            for (const auto &[a, size] : live)
                s.traces[0].push_back({"alloc", a, size, t++, 0, -1});
            for (const auto &[a, size] : live)
                s.traces[0].push_back({"free_completed", a, size, t++, 0, -1});
        }
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "steps.pickle");
        DeviceIndex index(*snapshot, 0);
        const TimelineLayout layout(index);
        const auto n = static_cast<uint32_t>(index.eventCount());
        const size_t maxBands = 30;
        for (const auto &[first, last] : {std::pair<uint32_t, uint32_t>{0, n - 1}, {0, n / 2}, {n / 3, n - 1}, {10, 60}}) {
            const TimelineFrame frame = layout.layout(EventId(first), EventId(last), 400, maxBands);
            checkWholeSizeClasses(index, frame, first, last, maxBands);
        }
        // The whole run: the weights and the one-of-a-kind allocation of each step are drawn,
        // no 64 MiB activation is (160 of them), so every step shows one band of its own.
        const TimelineFrame whole = layout.layout(EventId(0), EventId(n - 1), 400, maxBands);
        size_t activations = 0;
        for (const TimelineBand &b : whole.bands)
            activations += b.size == (64ull << 20);
        QCOMPARE(activations, size_t(0));
        QCOMPARE(whole.bands.size(), size_t(30)); // the weights and 29 of the 40 one-of-a-kind
    }

    // A trace cut as a full ring buffer (blocks from before it): built on two cores and on one,
    // the same frames, ghost bytes included.
    void layoutOnTwoCoresIsTheSame()
    {
        QTemporaryDir dir;
        QString error;
        const QString cut = cutGpt2Trace(dir.path(), &error);
        QVERIFY2(!cut.isEmpty(), qPrintable(error));
        auto snapshot = loadSnapshot(cut.toStdString());
        DeviceIndex index(*snapshot, 0);
        QVERIFY(index.initialBlocks() > 0);
        const TimelineLayout two(index, 0), one(index, SIZE_MAX);
        const EventId last(uint32_t(index.eventCount() - 1));
        bool ghosts = false;
        for (int columns : {1, 7, 800}) {
            // Few bands: the rest folds, its part from before the trace shown apart.
            const TimelineFrame a = two.layout(EventId(0), last, columns, 5), b = one.layout(EventId(0), last, columns, 5);
            ghosts = ghosts || std::any_of(b.otherGhostTop.begin(), b.otherGhostTop.end(), [](uint64_t v) { return v > 0; });
            QCOMPARE(a.columnEvent, b.columnEvent);
            QCOMPARE(a.total, b.total);
            QCOMPARE(a.otherTop, b.otherTop);
            QCOMPARE(a.otherGhostTop, b.otherGhostTop);
            QCOMPARE(a.bands.size(), b.bands.size());
            for (size_t i = 0; i < a.bands.size(); ++i)
                QCOMPARE(a.bands[i].allocation, b.bands[i].allocation);
        }
        QVERIFY(ghosts);
    }

    // A trace long enough for an index tree of several levels, with more allocations alive at
    // once than a node keeps: the largest in any window are exactly the largest alive in it,
    // whether the layout was built on one core or two.
    void largestInADeepTree()
    {
        QRandomGenerator random(7);
        SynthSnapshot s;
        s.traces.resize(1);
        std::multimap<uint32_t, std::pair<uint64_t, uint64_t>> frees; // due event -> addr, size
        uint64_t nextAddr = 1 << 20;
        const uint32_t n = 32 * TimelineLayout::kLeafEvents + 20000;
        for (uint32_t i = 0; i < n; ++i) {
            if (!frees.empty() && frees.begin()->first <= i) {
                const auto [addr, size] = frees.begin()->second;
                frees.erase(frees.begin());
                s.traces[0].push_back({"free_completed", addr, size, int64_t(i), 0, -1});
                continue;
            }
            const uint64_t size = 512 * (1 + random.bounded(4000)); // many equal sizes
            const uint32_t roll = random.bounded(100);
            const uint32_t life = roll < 70 ? 1 + random.bounded(2000) : roll < 95 ? 1 + random.bounded(50000) : UINT32_MAX;
            s.traces[0].push_back({"alloc", nextAddr, size, int64_t(i), 0, -1});
            if (life != UINT32_MAX)
                frees.emplace(i + life, std::make_pair(nextAddr, size));
            nextAddr += size;
        }
        auto snapshot = loadSnapshotFromMemory(s.pickle(), "deep.pickle");
        DeviceIndex index(*snapshot, 0);
        // Built on two cores and on one, and again from its parts as a reopen does: the same
        // answers, the oracle's.
        const TimelineLayout layout(index, 0), serial(index, SIZE_MAX), reopened(index, layout.parts());
        const auto events = static_cast<uint32_t>(index.eventCount());
        QVERIFY(events / TimelineLayout::kLeafEvents >= 32);
        size_t mostAlive = 0;
        for (int w = 0; w < 40; ++w) {
            const uint32_t width = w < 10 ? 1 + random.bounded(100) : w < 25 ? random.bounded(20000) : random.bounded(events);
            const uint32_t first = random.bounded(events - width), last = first + width;
            std::vector<uint64_t> alive;
            for (uint32_t i = 0; i < index.allocationCount(); ++i) {
                const Allocation &a = index.allocation(AllocationId(i));
                if (a.allocEvent <= EventId(last) && (a.freeCompleted == kNever || a.freeCompleted > std::max(EventId(first), a.allocEvent)))
                    alive.push_back(index.detail(AllocationId(i)).size);
            }
            mostAlive = std::max(mostAlive, alive.size());
            std::sort(alive.rbegin(), alive.rend());
            const size_t k = 300;
            std::vector<uint64_t> drawn;
            for (AllocationId id : layout.largestIn(EventId(first), EventId(last), k))
                drawn.push_back(index.detail(id).size);
            alive.resize(std::min(alive.size(), k));
            QVERIFY2(drawn == alive, qPrintable(QString("window %1..%2").arg(first).arg(last)));
            QCOMPARE(serial.largestIn(EventId(first), EventId(last), k), layout.largestIn(EventId(first), EventId(last), k));
            // The peak: the first entry after which active bytes are highest in the window.
            uint32_t peak = first;
            for (uint32_t e = first + 1; e <= last; ++e) {
                if (index.activeAt(TracePoint::after(EventId(e))) > index.activeAt(TracePoint::after(EventId(peak))))
                    peak = e;
            }
            QCOMPARE(layout.peakIn(EventId(first), EventId(last)), EventId(peak));
            QCOMPARE(serial.peakIn(EventId(first), EventId(last)), EventId(peak));
            QCOMPARE(reopened.peakIn(EventId(first), EventId(last)), EventId(peak));
        }
        QVERIFY(mostAlive > TimelineLayout::kPerNode);
    }
};

QTEST_GUILESS_MAIN(TestDeviceIndex)
#include "tst_deviceindex.moc"
