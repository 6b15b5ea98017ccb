// Replay through the caching-allocator model: its rules against what torch's source says they
// do, and every corpus file against what torch's allocator itself did in the same run (the
// recorded segment entries and truth.json's max_memory_reserved).
#include "CorpusFiles.h"
#include "index/DeviceIndex.h"
#include "decode/SnapshotLoader.h"
#include "replay/CachingAllocatorModel.h"
#include "replay/Replay.h"
#include "replay/ReplayReport.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

using namespace memlens;

namespace {

constexpr uint64_t MiB = 1ull << 20;
constexpr uint32_t kNone = CachingAllocatorModel::kNone;

AllocatorConfig conf(const char *text)
{
    return AllocatorConfig::parse(text);
}

struct CorpusReplay {
    std::unique_ptr<Snapshot> snapshot;
    std::unique_ptr<DeviceIndex> index;
    ReplayResult result;
};

CorpusReplay replayFile(const QString &path, std::optional<AllocatorConfig> config = std::nullopt)
{
    CorpusReplay r;
    r.snapshot = loadSnapshot(path.toStdString());
    r.index = std::make_unique<DeviceIndex>(*r.snapshot, r.snapshot->devices().front());
    ReplayOptions options;
    options.config = config ? *config : AllocatorConfig::recorded(*r.snapshot);
    r.result = replayTrace(*r.snapshot, *r.index, options);
    return r;
}

double relativeError(uint64_t got, uint64_t want)
{
    return want ? std::fabs(double(got) - double(want)) / double(want) : double(got);
}

} // namespace

class TestReplay : public QObject {
    Q_OBJECT

private slots:
    void configParsesTorchSyntax()
    {
        const AllocatorConfig c = conf("expandable_segments:True, max_split_size_mb:128,garbage_collection_threshold:0.6,"
                                       "roundup_power2_divisions:[256:1,512:2,>:8],release_lock_on_cudamalloc:True");
        QVERIFY(c.expandableSegments);
        QCOMPARE(c.maxSplitSize, 128 * MiB);
        QCOMPARE(c.garbageCollectionThreshold, 0.6);
        // torch: an entry S sets [S, 2S), the first one everything below, ">" what follows the last.
        QCOMPARE(c.divisionsFor(100 * MiB), uint64_t(1));
        QCOMPARE(c.divisionsFor(300 * MiB), uint64_t(1));
        QCOMPARE(c.divisionsFor(600 * MiB), uint64_t(2));
        QCOMPARE(c.divisionsFor(4096 * MiB), uint64_t(8));
        QCOMPARE(conf("roundup_power2_divisions:[64:2,1024:4]").divisionsFor(300 * MiB), uint64_t(0)); // a gap stays unset
        QCOMPARE(AllocatorConfig::parse(c.text()).text(), c.text());
        QCOMPARE(conf("roundup_power2_divisions:4").divisionsFor(MiB), uint64_t(4));
        // Today's keys (c10/cuda/CUDAAllocatorConfig.cpp): a fraction in [0, 1], the rounding above 20 MiB.
        const AllocatorConfig today = conf("per_process_memory_fraction:0.25,throw_on_cudamalloc_oom:True,max_non_split_rounding_mb:512");
        QCOMPARE(*today.perProcessMemoryFraction, 0.25);
        QVERIFY(today.throwOnCudaMallocOom);
        QCOMPARE(today.maxNonSplitRounding, 512 * MiB);
        QCOMPARE(*today.fractionCapacity(80 * 1024 * MiB), 20 * 1024 * MiB);
        QCOMPARE(AllocatorConfig::parse(today.text()).text(), today.text());
        QCOMPARE(AllocatorConfig().maxNonSplitRounding, 20 * MiB); // kLargeBuffer
        for (const char *bad : {"max_split_size_mb:20", "expandable_segments:yes", "garbage_collection_threshold:1.5",
                                "roundup_power2_divisions:3", "no_such_key:1", "expandable_segments",
                                "per_process_memory_fraction:1.5", "per_process_memory_fraction:-0.1", "max_non_split_rounding_mb:20",
                                "throw_on_cudamalloc_oom:maybe"}) {
            bool threw = false;
            try {
                AllocatorConfig::parse(bad);
            } catch (const std::invalid_argument &) {
                threw = true;
            }
            QVERIFY2(threw, bad);
        }
    }

    // Sizes as torch's round_size gives them: 512-byte steps, or with N divisions the next
    // 1/N step between two powers of two (1.2 MB with 4 divisions: 1.25 MiB).
    void sizesRoundAsTorchRoundsThem()
    {
        const AllocatorConfig none;
        QCOMPARE(CachingAllocatorModel::roundSize(1, none), uint64_t(512));
        QCOMPARE(CachingAllocatorModel::roundSize(513, none), uint64_t(1024));
        QCOMPARE(CachingAllocatorModel::roundSize(1200000, conf("roundup_power2_divisions:4")), MiB + MiB / 4);
        QCOMPARE(CachingAllocatorModel::roundSize(2 * MiB, conf("roundup_power2_divisions:4")), 2 * MiB);
        QCOMPARE(CachingAllocatorModel::allocationSize(MiB), 2 * MiB);
        QCOMPARE(CachingAllocatorModel::allocationSize(5 * MiB), 20 * MiB);
        QCOMPARE(CachingAllocatorModel::allocationSize(11 * MiB), 12 * MiB);
    }

    // "Small requests are packed into 2MB buffers", "requests between 1MB and 10MB will allocate
    // and split a 20MB block".
    void smallAndMidSizedRequestsShareSegments()
    {
        CachingAllocatorModel m(AllocatorConfig{}, std::nullopt);
        for (int i = 0; i < 4; ++i)
            QVERIFY(m.malloc(100000, 0, 0) != kNone);
        QCOMPARE(m.reservedBytes(), 2 * MiB);
        for (int i = 0; i < 4; ++i)
            QVERIFY(m.malloc(5 * MiB, 0, 0) != kNone);
        QCOMPARE(m.reservedBytes(), 22 * MiB);
        QVERIFY(m.malloc(5 * MiB, 0, 0) != kNone);
        QCOMPARE(m.reservedBytes(), 42 * MiB);
        // Another stream has its own pool.
        QVERIFY(m.malloc(100000, 7, 0) != kNone);
        QCOMPARE(m.reservedBytes(), 44 * MiB);
    }

    // "blocks >= max_split_size are not allowed to be split": an oversize cached block serves
    // only requests it exceeds by less than 20 MiB.
    void maxSplitSizeKeepsOversizeBlocksWhole()
    {
        CachingAllocatorModel plain(AllocatorConfig{}, std::nullopt);
        plain.free(plain.malloc(200 * MiB, 0, 0));
        QVERIFY(plain.malloc(150 * MiB, 0, 0) != kNone);
        QCOMPARE(plain.reservedBytes(), 200 * MiB); // split

        CachingAllocatorModel capped(conf("max_split_size_mb:100"), std::nullopt);
        capped.free(capped.malloc(200 * MiB, 0, 0));
        const uint32_t b = capped.malloc(150 * MiB, 0, 0);
        QCOMPARE(capped.reservedBytes(), 350 * MiB); // 200 ≥ 150 + 20: not used
        capped.free(b);
        const uint32_t whole = capped.malloc(190 * MiB, 0, 0);
        QCOMPARE(capped.reservedBytes(), 350 * MiB); // within 20 MiB: the 200 MiB block, unsplit
        QCOMPARE(capped.blockSize(whole), 200 * MiB);
    }

    // max_non_split_rounding_mb: "a 1024MB cached block can be re-used for a 512MB allocation
    // request" once the rounding allowed reaches it; by default only blocks within 20 MiB are.
    void nonSplitRoundingLetsLargerBlocksServe()
    {
        for (const auto &[text, reserved] : {std::pair{"max_split_size_mb:256", 1536 * MiB}, std::pair{"max_split_size_mb:256,max_non_split_rounding_mb:1024", 1024 * MiB}}) {
            CachingAllocatorModel m(conf(text), std::nullopt);
            m.free(m.malloc(1024 * MiB, 0, 0));
            const uint32_t b = m.malloc(512 * MiB, 0, 0);
            QVERIFY(b != kNone);
            QCOMPARE(m.reservedBytes(), reserved);
        }
    }

    // The corpus OOM ran under torch.cuda.set_per_process_memory_fraction with a 6 GiB cap: the
    // same cap given as per_process_memory_fraction F of an 80 GB H100 predicts the recorded OOM
    // event, and the fraction without the device's total changes nothing (with a note).
    void memoryFractionPredictsTheRecordedOom()
    {
        const QString file = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QJsonObject truth = readJsonObject(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/truth.json");
        const uint64_t cap = uint64_t(truth["budget_bytes"].toInteger());
        QCOMPARE(cap, 6ull << 30);
        const uint64_t h100 = 85'017'493'504; // the h100-80 preset: what torch.cuda reports for an H100 80GB
        const auto snapshot = loadSnapshot(file.toStdString());
        const DeviceIndex index(*snapshot, 0);
        ReplayOptions options;
        options.config = AllocatorConfig::recorded(*snapshot);
        options.config.perProcessMemoryFraction = double(cap) / double(h100);
        options.deviceTotal = h100;
        const ReplayResult r = replayTrace(*snapshot, index, options);
        QVERIFY(r.recorded.oomAt);
        QVERIFY(r.capacity.bytes && std::llabs(int64_t(*r.capacity.bytes) - int64_t(cap)) <= 1);
        QVERIFY(r.predicted.oomAt);
        QCOMPARE(r.predicted.oomAt->index(), r.recorded.oomAt->index());
        // A quarter of the device is room enough: no OOM.
        options.config.perProcessMemoryFraction = 0.25;
        QVERIFY(!replayTrace(*snapshot, index, options).predicted.oomAt);
        options.deviceTotal.reset();
        const ReplayResult noTotal = replayTrace(*snapshot, index, options);
        QCOMPARE(noTotal.predicted.oomAt->index(), r.recorded.oomAt->index()); // the capacity the OOM shows, as before
        QVERIFY(!noTotal.notes.empty() && noTotal.notes.back().find("per_process_memory_fraction") != std::string::npos);
    }

    // Expandable segments grow in 20 MiB pages (2 MiB for the small pool) at the end of one
    // segment per stream, so three 30 MiB tensors take five pages instead of three segments.
    void expandableSegmentsGrowInPages()
    {
        CachingAllocatorModel m(conf("expandable_segments:True"), std::nullopt);
        std::vector<uint32_t> blocks;
        for (int i = 0; i < 3; ++i)
            blocks.push_back(m.malloc(30 * MiB, 0, 0));
        QCOMPARE(m.reservedBytes(), 100 * MiB);
        std::vector<uint64_t> maps;
        for (const SegmentChange &c : m.takeSegmentChanges()) {
            QVERIFY(c.kind == SegmentChange::Map);
            maps.push_back(c.size);
        }
        QCOMPARE(maps, (std::vector<uint64_t>{40 * MiB, 20 * MiB, 40 * MiB}));
        QVERIFY(m.malloc(100000, 0, 0) != kNone);
        QCOMPARE(m.reservedBytes(), 102 * MiB);
        m.free(blocks[1]);
        m.emptyCache(); // the middle tensor's whole pages go back: 60-80 MiB
        QCOMPARE(m.reservedBytes(), 82 * MiB);
        m.free(blocks[0]);
        m.free(blocks[2]);
        m.emptyCache();
        QCOMPARE(m.reservedBytes(), 2 * MiB);
    }

    // Before an OOM torch frees every unsplit cached segment and retries; then it gives up.
    void releaseAndRetryBeforeAnOom()
    {
        CachingAllocatorModel m(AllocatorConfig{}, 50 * MiB);
        m.free(m.malloc(30 * MiB, 0, 0));
        const uint32_t b = m.malloc(40 * MiB, 0, 0);
        QVERIFY(b != kNone);
        QCOMPARE(m.reservedBytes(), 40 * MiB);
        const auto changes = m.takeSegmentChanges();
        QCOMPARE(changes.size(), size_t(3));
        QVERIFY(changes[1].kind == SegmentChange::Free && changes[1].size == 30 * MiB);
        QCOMPARE(m.malloc(20 * MiB, 0, 0), kNone);
        QCOMPARE(m.reservedBytes(), 40 * MiB);
    }

    // Under each corpus file's own setting the model must make the allocator's own decisions:
    // the same segment allocations in the same order, and the reserved peak torch measured.
    void corpusReplaysReproduceTheRecordedAllocator()
    {
        const QStringList files = corpusSnapshots();
        QVERIFY(files.size() >= 6);
        for (const QString &path : files) {
            const CorpusReplay r = replayFile(path);
            const QString name = QFileInfo(path).dir().dirName() + "/" + QFileInfo(path).fileName();
            const ReplayResult &res = r.result;
            QVERIFY2(!res.fromFirstEntry, qPrintable(name + ": every corpus trace is complete"));
            const QJsonObject truth = readJsonObject(QFileInfo(path).dir().filePath("truth.json"));
            const auto truthPeak = static_cast<uint64_t>(truth["peak_reserved"].toDouble());
            const double error = relativeError(res.predicted.peakReservedBytes, truthPeak);
            const std::optional<size_t> diff = firstSegmentDifference(res);
            qInfo("%s: predicted peak reserved %llu, torch measured %llu (error %.4f %%), segment allocations %zu/%zu%s",
                  qPrintable(name), (unsigned long long)res.predicted.peakReservedBytes, (unsigned long long)truthPeak, error * 100,
                  res.predicted.segmentAllocs.size(), res.recorded.segmentAllocs.size(), diff ? qPrintable(QString(", first difference at %1").arg(*diff)) : "");
            QVERIFY2(error <= 0.01, qPrintable(name + ": predicted reserved peak more than 1 % from torch's"));
            QVERIFY2(!diff, qPrintable(name + ": the segment allocations differ from the recorded ones"));
            QCOMPARE(res.predicted.oomAt.has_value(), res.recorded.oomAt.has_value());
            if (res.recorded.oomAt)
                QCOMPARE(*res.predicted.oomAt, *res.recorded.oomAt);
        }
    }

    // Whatever the setting, reserved memory holds every allocated block: the predicted peak is
    // never below torch's max_memory_allocated for a run that does not stop early.
    void whatIfsNeverReserveLessThanIsAllocated()
    {
        for (const QString &path : corpusSnapshots()) {
            if (path.contains("oom"))
                continue;
            const QJsonObject truth = readJsonObject(QFileInfo(path).dir().filePath("truth.json"));
            const auto allocatedPeak = static_cast<uint64_t>(truth["peak_allocated"].toDouble());
            for (const char *what : {"expandable_segments:True", "max_split_size_mb:64", "roundup_power2_divisions:4"}) {
                const CorpusReplay r = replayFile(path, conf(what));
                QVERIFY(!r.result.predicted.oomAt);
                QVERIFY2(r.result.predicted.peakReservedBytes >= allocatedPeak, qPrintable(path + " with " + what));
                qInfo("%s with %s: predicted peak reserved %llu (recorded %llu)", qPrintable(QFileInfo(path).dir().dirName()), what,
                      (unsigned long long)r.result.predicted.peakReservedBytes, (unsigned long long)r.result.recorded.peakReservedBytes);
            }
        }
    }

    // A trace whose oldest entries the ring buffer dropped starts from the segments and blocks
    // live at its first entry, and says so.
    void truncatedTracesStartFromTheirFirstEntry()
    {
        QTemporaryDir dir;
        QString error;
        const QString cut = cutGpt2Trace(dir.path(), &error);
        QVERIFY2(!cut.isEmpty(), qPrintable(error));
        const CorpusReplay r = replayFile(cut);
        QVERIFY(r.result.fromFirstEntry);
        QVERIFY(!r.result.notes.empty());
        QCOMPARE(r.result.startReservedBytes, r.index->startReservedBytes());
        const double err = relativeError(r.result.predicted.peakReservedBytes, r.index->peakReservedBytes());
        qInfo("cut gpt2: predicted peak %llu, recorded %llu (error %.4f %%)", (unsigned long long)r.result.predicted.peakReservedBytes,
              (unsigned long long)r.index->peakReservedBytes(), err * 100);
        QVERIFY(err <= 0.01);
    }

    // The predicted segments make up the predicted reserved bytes after every entry (both come
    // out of the one replay, one from its segment changes, one from its running total), under a
    // cudaMalloc'd setting, an expandable one (maps, unmaps inside a range) and from a cut trace.
    void unmapInsideAMappedRangeLeavesItsPieces()
    {
        PredictedSegmentRecorder recorder;
        recorder.seed(1000, 50);
        recorder.apply({SegmentChange::Map, 0, 100}, EventId(1));
        recorder.apply({SegmentChange::Unmap, 30, 20}, EventId(2));
        recorder.apply({SegmentChange::Free, 1000, 50}, EventId(3));
        recorder.apply({SegmentChange::Unmap, 0, 30}, EventId(4));
        const std::vector<PredictedSegment> lives = recorder.take();
        QCOMPARE(lives.size(), size_t(4));
        QVERIFY(lives[0].created.isNone() && lives[0].released == EventId(3));
        QVERIFY(lives[1].addr == 0 && lives[1].size == 100 && lives[1].created == EventId(1) && lives[1].released == EventId(2));
        QVERIFY(lives[2].addr == 0 && lives[2].size == 30 && lives[2].created == EventId(2) && lives[2].released == EventId(4));
        QVERIFY(lives[3].addr == 50 && lives[3].size == 50 && lives[3].created == EventId(2) && lives[3].released == kNever);
    }

    void predictedSegmentsMakeUpPredictedReserved()
    {
        QTemporaryDir dir;
        QString error;
        const QString cut = cutGpt2Trace(dir.path(), &error);
        QVERIFY2(!cut.isEmpty(), qPrintable(error));
        const QString oom = corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
        const QString frag = corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst";
        const std::vector<std::pair<QString, std::optional<AllocatorConfig>>> runs{
            {oom, std::nullopt}, {oom, AllocatorConfig::parse("expandable_segments:True")}, {frag, AllocatorConfig::parse("expandable_segments:True")}, {cut, std::nullopt}};
        for (const auto &[file, config] : runs) {
            const CorpusReplay r = replayFile(file, config);
            const auto &segments = r.result.predictedSegments;
            QVERIFY(!segments.empty());
            auto reservedAfter = [&](uint32_t e) {
                uint64_t bytes = 0;
                for (const PredictedSegment &s : segments)
                    if ((s.created.isNone() || s.created.index() <= e) && (s.released == kNever || s.released.index() > e))
                        bytes += s.size;
                return bytes;
            };
            uint64_t want = r.result.startReservedBytes;
            size_t change = 0;
            const uint32_t end = r.result.predicted.oomAt ? r.result.predicted.oomAt->index() : uint32_t(r.index->eventCount());
            for (uint32_t e = 0; e < end; e += 97) {
                while (change < r.result.predictedReserved.size() && r.result.predictedReserved[change].first.index() <= e)
                    want = r.result.predictedReserved[change++].second;
                QVERIFY2(reservedAfter(e) == want, qPrintable(QString("%1 after event %2: segments %3, reserved %4").arg(file).arg(e).arg(reservedAfter(e)).arg(want)));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestReplay)
#include "tst_replay.moc"
