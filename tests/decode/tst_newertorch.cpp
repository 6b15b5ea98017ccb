// Files from torch main (2026) and files that decode but are inconsistent: snapshots built from a
// corpus run by tests/tools/make_newer_snapshot.py and make_inconsistent.py, which also say (by
// replaying the trace in Python) what a correct reader finds in them.
#include "CorpusFiles.h"
#include "IdPrinting.h"
#include "SnapshotEquality.h"

#include "views/AllocationSearch.h"
#include "views/CallTree.h"
#include "figures/FileHealth.h"
#include "figures/PoolUsage.h"
#include "figures/SnapshotSummary.h"
#include "views/TimelineLayout.h"
#include "cache/SnapshotCodec.h"
#include "decode/SnapshotLoader.h"
#include "report/SummaryReport.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace memlens;

namespace {

QString source()
{
    return corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
}

const LiveBlockInfo *liveWithAllocEvent(const DeviceSummary &s, EventId event)
{
    for (const LiveBlockInfo &b : s.topLiveAtPeak)
        if (b.allocEvent == event)
            return &b;
    return nullptr;
}

int deviceNamed(const Snapshot &snapshot, const std::string &name)
{
    for (int d : snapshot.devices())
        if (snapshot.deviceName(d) == name)
            return d;
    return -1;
}

} // namespace

// The timeline stacks each private pool's allocations inside its region at the bottom, as tall as
// its envelope, and the default pool's above: every column's regions add up to what they hold.
void checkPoolStacking(const DeviceIndex &index, const std::vector<PoolUsage> &pools)
{
    const TimelineLayout layout(index);
    const auto n = static_cast<uint32_t>(index.eventCount());
    const TimelineFrame frame = layout.layout(EventId(0), EventId(n - 1), 300, 20000, pools);
    QCOMPARE(frame.pools.size(), pools.size());
    size_t pooled = 0;
    for (size_t c = 0; c < frame.columnEvent.size(); ++c) {
        const EventId e = frame.columnEvent[c];
        const TimelinePoolRegion &region = frame.pools[0];
        QCOMPARE(region.base[c], uint64_t(0));
        QCOMPARE(region.top[c], pools[0].envelope.at(TracePoint::after(e)));
        QCOMPARE(frame.otherBottom[c], region.top[c]);
        uint64_t inPool = region.otherTop[c] - region.base[c], inDefault = frame.otherTop[c] - frame.otherBottom[c];
        for (const TimelineBand &band : frame.bands) {
            if (!band.alive(c))
                continue;
            const bool isPooled = band.region == 0;
            QCOMPARE(isPooled, index.poolOf(band.allocation) == pools[0].pool);
            if (isPooled) {
                QVERIFY(band.bottomAt(c) >= region.base[c] && band.bottomAt(c) + band.size <= region.top[c]);
                inPool += band.size;
                ++pooled;
            } else {
                QVERIFY(band.bottomAt(c) >= frame.otherBottom[c]);
                inDefault += band.size;
            }
        }
        QCOMPARE(inPool, pools[0].active.at(TracePoint::after(e)));
        QCOMPARE(inDefault, frame.total[c] - pools[0].active.at(TracePoint::after(e)));
    }
    QVERIFY(pooled > 0);
    // The plot's height: the stack's highest point, replayed event by event.
    uint64_t top = std::max(index.peakActiveBytes(), index.peakReservedBytes());
    for (uint32_t i = 0; i < n; ++i) {
        const EventId e(i);
        top = std::max(top, index.activeAt(TracePoint::after(e)) + pools[0].envelope.at(TracePoint::after(e)) - pools[0].active.at(TracePoint::after(e)));
    }
    QCOMPARE(stackedPeakBytes(index, pools), top);
    QVERIFY(top > index.peakActiveBytes());
}

class TestNewerTorch : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QJsonObject newer_, truncated_, inconsistent_;

    QString file(const QString &name) const { return dir_.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(dir_.isValid());
        QString error;
        const QJsonObject facts =
            QJsonDocument::fromJson(runPythonTool("make_newer_snapshot.py", {source(), dir_.path()}, &error)).object();
        QVERIFY2(!facts.isEmpty(), qPrintable(error));
        newer_ = facts["newer"].toObject();
        truncated_ = facts["truncated"].toObject();
        inconsistent_ =
            QJsonDocument::fromJson(runPythonTool("make_inconsistent.py", {source(), dir_.filePath("bad")}, &error)).object();
        QVERIFY2(!inconsistent_.isEmpty(), qPrintable(error));
    }

    // Labels from annotate entries sit on the allocation live at their address; a new alloc at
    // that address starts afresh (the "stale" label is on an earlier allocation there).
    void labelsOnTheRightAllocations_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("protocol 4") << "newer.pickle";
        QTest::newRow("protocol 5") << "newer_p5.pickle";
    }
    void labelsOnTheRightAllocations()
    {
        QFETCH(QString, name);
        auto snapshot = loadSnapshot(file(name).toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 50);
        QCOMPARE(s.actions[size_t(Action::Annotate)], uint64_t(newer_["annotate_entries"].toInt()));
        const QJsonObject labels = newer_["labels"].toObject();
        int labelled = 0;
        for (const LiveBlockInfo &b : s.topLiveAtPeak) {
            const QJsonArray expected = labels[QString::number(b.allocEvent.index())].toArray();
            QCOMPARE(int(b.labels.size()), int(expected.size()));
            for (int i = 0; i < expected.size(); ++i)
                QCOMPARE(QString::fromStdString(b.labels[size_t(i)]), expected[i].toString());
            labelled += !b.labels.empty();
        }
        QCOMPARE(labelled, labels.size());
        // Metadata and compile context of the alloc entry.
        const QJsonObject meta = newer_["user_metadata"].toObject(), compiled = newer_["compile_context"].toObject();
        for (const QString &key : meta.keys()) {
            const LiveBlockInfo *b = liveWithAllocEvent(s, EventId(key.toUInt()));
            QVERIFY(b);
            QCOMPARE(QString::fromStdString(std::string(snapshot->strings.at(b->userMetadata))), meta[key].toString());
            QCOMPARE(b->compileContext, StringTable::kEmpty);
        }
        for (const QString &key : compiled.keys()) {
            const LiveBlockInfo *b = liveWithAllocEvent(s, EventId(key.toUInt()));
            QVERIFY(b);
            QCOMPARE(QString::fromStdString(std::string(snapshot->strings.at(b->compileContext))), compiled[key].toString());
        }
        // The JSON carries them too.
        const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson(*snapshot, "x", {{s, std::nullopt}}))).object();
        const QJsonArray top = json["devices"].toArray()[0].toObject()["top_live_at_peak"].toArray();
        QVERIFY(!top.isEmpty());
        for (const QJsonValue &v : top) {
            const QJsonObject entry = v.toObject();
            QVERIFY(entry["labels"].isArray());
            QCOMPARE(entry["labels"].toArray(), labels[QString::number(entry["alloc_index"].toInteger())].toArray());
            QCOMPARE(entry.contains("user_metadata"), meta.contains(QString::number(entry["alloc_index"].toInteger())));
        }
    }

    // Stacks grouped by compiled region, user metadata or label: the named groups hold exactly the
    // allocations carrying that value; FX frames are one node per original model line.
    void stacksGrouped_data()
    {
        QTest::addColumn<int>("grouping");
        for (StackGrouping g : {StackGrouping::CompiledRegion, StackGrouping::UserMetadata, StackGrouping::Label})
            QTest::newRow(kStackGroupingNames.name(g).data()) << int(g);
    }
    void stacksGrouped()
    {
        QFETCH(int, grouping);
        const auto g = StackGrouping(grouping);
        auto snapshot = loadSnapshot(file("newer.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        CallTreeOptions options;
        options.grouping = g;
        const CallTree tree(*snapshot, index, index.liveAt(index.peak()), options);
        const QJsonObject expected = newer_["groups_at_peak"].toObject()[QString::fromLatin1(kStackGroupingNames.name(g).data())].toObject();
        uint64_t named = 0, inGroups = 0;
        for (CallTreeNodeId child : tree.root().children) {
            QCOMPARE(tree.node(child).frame, CallTree::kGroup);
            inGroups += tree.node(child).bytes;
            if (tree.node(child).text == StringTable::kEmpty)
                continue;
            const QString value = QString::fromStdString(tree.label(child));
            QVERIFY2(expected.contains(value), qPrintable(value));
            QCOMPARE(tree.node(child).bytes, uint64_t(expected[value].toInteger()));
            ++named;
        }
        QCOMPARE(named, uint64_t(expected.size()));
        QCOMPARE(inGroups, tree.root().bytes);
        // The labels column: the root carries the labels of what is below it.
        if (g == StackGrouping::Label)
            QVERIFY(!tree.root().labels.empty());
    }

    void fxFramesGroupByOriginalLine()
    {
        auto snapshot = loadSnapshot(file("newer.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        CallTreeOptions options;
        options.bottomUp = true;
        const CallTree tree(*snapshot, index, index.liveAt(index.peak()), options);
        std::vector<CallTreeNodeId> fx;
        for (CallTreeNodeId child : tree.root().children)
            if (tree.label(child).starts_with("model.py:10:forward"))
                fx.push_back(child);
        QCOMPARE(fx.size(), size_t(1));
        QCOMPARE(QString::fromStdString(tree.label(fx[0])), QStringLiteral("model.py:10:forward  a = self.net1(x) [addmm_1]"));
        QCOMPARE(tree.node(fx[0]).bytes, uint64_t(newer_["fx_bytes"].toInteger()));
        QCOMPARE(fxOriginalLine("no traceback"), std::string("no traceback"));
        QCOMPARE(fxOriginalLine("  File \"/a/b.py\", line 7, in f\n    x = g()\n  File \"/a/c.py\", line 9, in g\n    return h()\n"),
                 std::string("c.py:9:g  return h()"));
    }

    // One search rule (Live and the timeline): labels, metadata, compiled region, FX model lines
    // and addresses find exactly the allocations carrying them.
    void searchFindsNewerFields()
    {
        auto snapshot = loadSnapshot(file("newer.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        auto hits = [&](const char *text) {
            const AllocationSearch search(*snapshot, index, text);
            std::vector<AllocationId> out;
            for (uint32_t id = 0; id < index.allocationCount(); ++id)
                if (search.matches(AllocationId(id)))
                    out.push_back(AllocationId(id));
            return out;
        };
        auto bornAt = [&](const QString &key) { return index.allocationOfEvent(EventId(key.toUInt())); };
        const QJsonObject meta = newer_["user_metadata"].toObject(), compiled = newer_["compile_context"].toObject();
        const QJsonObject labels = newer_["labels"].toObject();
        QString logits;
        for (const QString &key : labels.keys())
            if (labels[key].toArray().contains(QJsonValue("logits")))
                logits = key;
        QCOMPARE(hits("LOGITS"), std::vector<AllocationId>{bornAt(logits)});
        QCOMPARE(hits("\"layer\":3"), std::vector<AllocationId>{bornAt(meta.keys().front())});
        QCOMPARE(hits("compiled region: 0/0"), std::vector<AllocationId>{bornAt(compiled.keys().front())});
        const AllocationId fx = index.allocationOfEvent(EventId(uint32_t(newer_["fx_alloc_index"].toInt())));
        QCOMPARE(hits("self.net1"), std::vector<AllocationId>{fx});
        QCOMPARE(hits("addmm_1"), std::vector<AllocationId>{fx});
        char address[24];
        std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(index.detail(fx).addr));
        QVERIFY(!hits(address).empty());
        for (AllocationId id : hits(address))
            QCOMPARE(index.detail(id).addr, index.detail(fx).addr);
        QVERIFY(AllocationSearch(*snapshot, index, "  ").empty());
    }

    void fxFramesInTheStack()
    {
        auto snapshot = loadSnapshot(file("newer.pickle").toStdString());
        QVERIFY(snapshot->facts.hasFxFrames);
        const EventTable &ev = snapshot->traces.at(0);
        const auto event = uint32_t(newer_["fx_alloc_index"].toInt());
        QCOMPARE(ev.action[event], Action::Alloc);
        const auto frames = snapshot->stacks.at(ev.stack[event]);
        QVERIFY(!frames.empty());
        const FxFrame *fx = snapshot->fxFrame(frames.front());
        QVERIFY(fx);
        QCOMPARE(snapshot->strings.at(fx->op), std::string_view("call_function"));
        QCOMPARE(snapshot->strings.at(fx->node), std::string_view("addmm_1"));
        QCOMPARE(snapshot->strings.at(fx->target), std::string_view("aten.addmm.default"));
        QVERIFY(snapshot->strings.at(fx->originalTrace).find("a = self.net1(x)") != std::string_view::npos);
        QCOMPARE(snapshot->fxFrames.size(), size_t(1));
        // The other newer entry keys are kept.
        QCOMPARE(ev.forwardFrames.size(), size_t(1));
        QVERIFY(snapshot->strings.at(ev.forwardFrames[0].second).find("line 10, in forward\n    a = self.net1(x)") != std::string_view::npos);
        QCOMPARE(ev.internalMetadata.size(), size_t(1));
        QCOMPARE(snapshot->strings.at(ev.internalMetadata[0].second), std::string_view("mallocWithAddress"));
        bool maxCached = false;
        for (const auto &[k, v] : snapshot->allocatorSettings)
            maxCached = maxCached || (k == "max_cached_size" && v == "0");
        QVERIFY(maxCached);
    }

    // Without pool_id on the entries (files before 2026) the pool comes from the final segment.
    void privatePool_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("poolIds");
        QTest::newRow("pool_id") << "newer.pickle" << true;
        QTest::newRow("final segments") << "no_pool_ids.pickle" << false;
    }
    void privatePool()
    {
        QFETCH(QString, name);
        QFETCH(bool, poolIds);
        auto snapshot = loadSnapshot(file(name).toStdString());
        QCOMPARE(snapshot->facts.hasPoolIds, poolIds);
        DeviceIndex index(*snapshot, 0);
        const std::vector<PoolUsage> pools = privatePools(*snapshot, index);
        const QJsonObject pool = newer_["pool"].toObject();
        QCOMPARE(pools.size(), size_t(1));
        const PoolUsage &u = pools.front();
        QCOMPARE(snapshot->poolId(u.pool), std::make_pair(int64_t(pool["id"].toArray()[0].toInt()), int64_t(pool["id"].toArray()[1].toInt())));
        QCOMPARE(u.allocations, uint64_t(pool["allocations"].toInt()));
        QCOMPARE(u.reserved.start, uint64_t(0));
        QCOMPARE(u.reserved.last(), uint64_t(pool["reserved_bytes"].toInteger()));
        QCOMPARE(u.active.last(), uint64_t(pool["active_bytes_at_end"].toInteger()));
        QCOMPARE(u.active.peak(), uint64_t(pool["peak_active_bytes"].toInteger()));
        QCOMPARE(u.envelope.last(), uint64_t(pool["reserved_bytes"].toInteger()));
        checkPoolStacking(index, pools);
        // The corpus runs have none.
        auto plain = loadSnapshot(source().toStdString());
        DeviceIndex plainIndex(*plain, 0);
        QVERIFY(privatePools(*plain, plainIndex).empty());
    }

    void hostDevice()
    {
        auto snapshot = loadSnapshot(file("newer.pickle").toStdString());
        const int host = deviceNamed(*snapshot, "host");
        QVERIFY(host > 0);
        DeviceIndex index(*snapshot, host);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        const QJsonObject expected = newer_["host"].toObject();
        QCOMPARE(s.entries, uint64_t(expected["entries"].toInt()));
        QCOMPARE(s.peakActiveBytes, uint64_t(expected["peak_active_bytes"].toInteger()));
        QCOMPARE(s.peakReservedBytes, uint64_t(expected["peak_reserved_bytes"].toInteger()));
        QCOMPARE(s.final.reserved, uint64_t(expected["reserved_bytes"].toInteger()));
        QCOMPARE(s.final.segments, uint64_t(expected["segments"].toInt()));
        QVERIFY(!s.coverage.truncated);
        QVERIFY(s.warnings.empty());
        const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson(*snapshot, "x", {{s, std::nullopt}}))).object();
        QCOMPARE(json["devices"].toArray()[0].toObject()["name"].toString(), QString("host"));
        // The GPU's figures do not move: the host's segments are not the GPU's.
        DeviceIndex gpu(*snapshot, 0);
        QCOMPARE(finalState(*snapshot, 0).segments, finalState(*loadSnapshot(source().toStdString()), 0).segments + 1);
    }

    void protocol5ReadsTheSame()
    {
        auto p4 = loadSnapshot(file("newer.pickle").toStdString());
        auto p5 = loadSnapshot(file("newer_p5.pickle").toStdString());
        QCOMPARE(p5->facts.pickleProtocol, 5);
        QCOMPARE(p4->devices(), p5->devices());
        auto devicesJson = [](const Snapshot &snapshot) -> QJsonValue {
            std::vector<DeviceReport> reports;
            for (int d : snapshot.devices()) {
                DeviceIndex index(snapshot, d);
                reports.push_back({summarizeDevice(snapshot, index, 50), std::nullopt});
            }
            return QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson(snapshot, "x", reports))).object().value("devices");
        };
        QCOMPARE(devicesJson(*p5), devicesJson(*p4));
    }

    // The cache keeps every new field: a decoded copy summarises identically.
    void cacheRoundTrip()
    {
        auto snapshot = loadSnapshot(file("newer.pickle").toStdString());
        auto copy = decodeSnapshot(encodeSnapshot(*snapshot));
        QCOMPARE(difference(*copy, *snapshot), QString());
        QCOMPARE(copy->devices(), snapshot->devices());
        QCOMPARE(copy->pools, snapshot->pools);
        QCOMPARE(copy->fxFrames.size(), snapshot->fxFrames.size());
        QCOMPARE(copy->facts.hostDevice, snapshot->facts.hostDevice);
        for (int d : snapshot->devices()) {
            DeviceIndex a(*snapshot, d), b(*copy, d);
            QCOMPARE(summaryJson(*copy, "x", {{summarizeDevice(*copy, b, 50), std::nullopt}}),
                     summaryJson(*snapshot, "x", {{summarizeDevice(*snapshot, a, 50), std::nullopt}}));
        }
    }

    void truncationReported()
    {
        auto snapshot = loadSnapshot(file("truncated.pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        const FileHealth health = fileHealth(*snapshot, index);
        const TraceCoverage &c = health.coverage;
        QVERIFY(c.truncated);
        QCOMPARE(index.eventCount(), size_t(truncated_["entries"].toInt()));
        QCOMPARE(c.coversFromUs.value_or(0), truncated_["covers_from_time_us"].toInteger());
        QCOMPARE(c.ghostBlocks, uint64_t(truncated_["ghost_blocks"].toInt()));
        QCOMPARE(c.ghostBytes, uint64_t(truncated_["ghost_bytes"].toInteger()));
        const QString evidence = QString::fromStdString(c.evidence.front());
        QVERIFY2(evidence.startsWith(QString::number(truncated_["frees_never_allocated"].toInt()) + " frees"), qPrintable(evidence));
        QVERIFY(health.warnings.empty()); // a cut trace is not a damaged file
        // The JSON keys the README documents.
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson(*snapshot, "x", {{s, std::nullopt}})))
                                     .object().value("devices").toArray()[0].toObject();
        QCOMPARE(json["truncated"].toBool(), true);
        QCOMPARE(json["covers_from_time_us"].toInteger(), truncated_["covers_from_time_us"].toInteger());
        QCOMPARE(json["truncation_evidence"].toArray().size(), int(c.evidence.size()));
        QCOMPARE(json["ghost_blocks"].toInteger(), truncated_["ghost_blocks"].toInteger());
        QCOMPARE(json["ghost_bytes"].toInteger(), truncated_["ghost_bytes"].toInteger());
        QVERIFY(json["warnings"].isArray() && json["warnings"].toArray().isEmpty());
        // The timeline stacks ghost blocks lowest, as the oldest: in every column each one lies
        // below every allocation born within the trace.
        const TimelineFrame frame = TimelineLayout(index).layout(EventId(0), EventId(uint32_t(index.eventCount() - 1)), 200, 2000);
        size_t ghosts = 0;
        for (size_t c = 0; c < frame.columnEvent.size(); ++c) {
            uint64_t ghostTop = 0, bornBottom = UINT64_MAX;
            for (const TimelineBand &band : frame.bands) {
                if (!band.alive(c))
                    continue;
                if (index.allocation(band.allocation).allocEvent.isNone()) {
                    ghostTop = std::max(ghostTop, band.bottomAt(c) + band.size);
                    ++ghosts;
                } else {
                    bornBottom = std::min(bornBottom, band.bottomAt(c));
                }
            }
            QVERIFY(ghostTop <= bornBottom);
        }
        QVERIFY(ghosts > 0);
        // With few bands most ghost blocks are folded: the folded band's hatched part and the
        // ghost bands drawn add up to the ghost bytes alive at each column, counted here from the
        // allocations themselves.
        // Columns sampled at their peak never sit on a free, so the frees of ghost blocks are
        // also shown as columns of one event each.
        std::vector<TimelineLayout::ColumnRange> atFrees;
        for (uint32_t id = 0; id < index.allocationCount(); ++id) {
            const Allocation &a = index.allocation(AllocationId(id));
            if (a.allocEvent.isNone() && a.freeCompleted.index() < index.eventCount())
                atFrees.emplace_back(a.freeCompleted, a.freeCompleted);
        }
        std::sort(atFrees.begin(), atFrees.end());
        atFrees.erase(std::unique(atFrees.begin(), atFrees.end()), atFrees.end());
        QVERIFY(atFrees.size() > 10);
        const TimelineLayout layout(index);
        uint64_t foldedSeen = 0;
        for (size_t maxBands : {size_t(0), size_t(5), size_t(60)}) {
            const TimelineFrame few = maxBands == 5 ? layout.layoutColumns(atFrees, maxBands)
                                                    : layout.layout(EventId(0), EventId(uint32_t(index.eventCount() - 1)), 150, maxBands);
            for (size_t c = 0; c < few.columnEvent.size(); ++c) {
                const EventId e = few.columnEvent[c];
                uint64_t alive = 0, drawn = 0;
                for (uint32_t id = 0; id < index.allocationCount(); ++id) {
                    const Allocation &a = index.allocation(AllocationId(id));
                    if (a.allocEvent.isNone() && (a.freeCompleted == kNever || a.freeCompleted > e))
                        alive += index.detail(AllocationId(id)).size;
                }
                for (const TimelineBand &band : few.bands) {
                    if (band.alive(c) && index.allocation(band.allocation).allocEvent.isNone())
                        drawn += band.size;
                }
                QVERIFY(few.otherBottom[c] <= few.otherGhostTop[c] && few.otherGhostTop[c] <= few.otherTop[c]);
                QCOMPARE(few.otherGhostTop[c] - few.otherBottom[c] + drawn, alive);
                foldedSeen += few.otherGhostTop[c] - few.otherBottom[c];
            }
        }
        QVERIFY(foldedSeen > 0);
    }

    void completeRunsAreNotTruncated_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &f : corpusSnapshots())
            QTest::newRow(qPrintable(QFileInfo(f).dir().dirName() + "/" + QFileInfo(f).fileName())) << f;
        QTest::newRow("newer") << file("newer.pickle");
    }
    void completeRunsAreNotTruncated()
    {
        QFETCH(QString, path);
        auto snapshot = loadSnapshot(path.toStdString());
        for (int d : snapshot->devices()) {
            DeviceIndex index(*snapshot, d);
            const FileHealth health = fileHealth(*snapshot, index);
            const TraceCoverage &c = health.coverage;
            QVERIFY2(!c.truncated, c.evidence.empty() ? "" : c.evidence.front().c_str());
            QCOMPARE(c.ghostBlocks, uint64_t(0));
            QVERIFY(health.warnings.empty());
        }
    }

    void ringSizes()
    {
        QVERIFY(looksLikeRingSize(100000));
        QVERIFY(looksLikeRingSize(1000000));
        QVERIFY(looksLikeRingSize(65536));
        QVERIFY(!looksLikeRingSize(73416));
        QVERIFY(!looksLikeRingSize(1000));
    }

    // Each damaged file loads, says what is wrong, and keeps its figures sane.
    void inconsistentFilesWarn_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : inconsistent_.keys())
            QTest::newRow(qPrintable(name)) << name;
    }
    void inconsistentFilesWarn()
    {
        QFETCH(QString, name);
        const QJsonObject facts = inconsistent_[name].toObject();
        auto snapshot = loadSnapshot(dir_.filePath("bad/" + name + ".pickle").toStdString());
        DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QStringList kinds;
        for (const FileWarning &w : s.warnings)
            kinds << QString::fromStdString(w.kind);
        if (facts["kind"].isNull()) {
            QVERIFY2(kinds.isEmpty(), qPrintable(kinds.join(", ")));
        } else {
            QVERIFY2(kinds.contains(facts["kind"].toString()), qPrintable(kinds.join(", ")));
            for (const FileWarning &w : s.warnings)
                QVERIFY(w.count > 0 && !w.message.empty());
        }
        if (facts["skip_actions"].toBool() && !facts["kind"].isNull())
            QVERIFY(s.warnings.front().message.find("skip_actions") != std::string::npos);
        // Never an exabyte: the peak stays within what the damaged trace itself allows.
        QVERIFY2(s.peakActiveBytes <= uint64_t(facts["peak_at_most"].toInteger()),
                 qPrintable(QString("%1 > %2").arg(s.peakActiveBytes).arg(facts["peak_at_most"].toInteger())));
        QVERIFY(s.peakReservedBytes < (uint64_t(1) << 50));
        const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(summaryJson(*snapshot, "x", {{s, std::nullopt}})))
                                     .object().value("devices").toArray()[0].toObject();
        QCOMPARE(json["warnings"].toArray().size(), int(s.warnings.size()));
        for (const QJsonValue &w : json["warnings"].toArray())
            QVERIFY(kinds.contains(w.toObject()["kind"].toString()) && w.toObject()["count"].toInteger() > 0 &&
                    !w.toObject()["message"].toString().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestNewerTorch)
#include "tst_newertorch.moc"
