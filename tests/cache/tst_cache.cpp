// The snapshot cache: a reopened file equals a cold load field for field; a damaged, stale or
// foreign entry is never believed; a failed write leaves nothing behind; old entries go first.
#include "CorpusFiles.h"
#include "advice/AdviceReport.h"
#include "SnapshotEquality.h"
#include "SyntheticSnapshot.h"
#include "cache/SnapshotCache.h"
#include "cache/SnapshotCodec.h"
#include "cache/StoredColumns.h"
#include "cache/StoredAnswers.h"
#include "decode/SnapshotLoader.h"
#include "cache/CachedSnapshot.h"
#include "model/NarrowColumn.h"
#include "pipeline/DocumentPipeline.h"
#include "pipeline/HeadStart.h"
#include "cache/IndexSections.h"
#include "pipeline/StoredIndexes.h"
#include "questions/AdviseQuestion.h"
#include "report/SummaryReport.h"
#include "figures/SnapshotSummary.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QProcess>
#include <QTest>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

using namespace memlens;

namespace {

std::string summaryOf(const Snapshot &s, const std::string &file)
{
    std::vector<DeviceReport> reports;
    for (int d : s.devices()) {
        DeviceIndex index(s, d);
        reports.push_back({summarizeDevice(s, index, 10), std::nullopt});
    }
    return summaryJson(s, file, reports);
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// Whether the page holding `p` is a mapping of the file at `path` (by /proc/self/maps).
bool mappedFrom(const void *p, const std::string &path)
{
    const auto at = reinterpret_cast<uintptr_t>(p);
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        unsigned long from = 0, to = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &from, &to) == 2 && from <= at && at < to)
            return line.ends_with(" " + path);
    }
    return false;
}

void writeAll(const std::string &path, std::string_view bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

QStringList cacheableFiles()
{
    QStringList files = corpusSnapshots();
    files << corpusDir() + "/profiles/gpt2_bf16_adamw/trace.pt.trace.json.gz";
    return files;
}

// Frames over the whole trace and a few windows of it, at a width that folds and one that does not.
std::vector<TimelineFrame> framesOf(const TimelineLayout &layout, const DeviceIndex &index, std::span<const PoolUsage> pools)
{
    std::vector<TimelineFrame> frames;
    const auto n = static_cast<uint32_t>(index.eventCount());
    if (n == 0)
        return frames;
    for (const auto &[first, last] : {std::pair<uint32_t, uint32_t>{0, n - 1}, {n / 3, n - 1}, {n / 5, n / 2}, {n / 2, n / 2}})
        for (int columns : {5, 37, 400})
            frames.push_back(layout.layout(EventId(first), EventId(last), columns, 50, pools));
    return frames;
}

// The first `keep` of `lists`, and `extra` appended to the first of them.
NestedLists<AllocationId> withLists(const NestedLists<AllocationId> &lists, size_t keep, std::optional<AllocationId> extra)
{
    NestedLists<AllocationId> out;
    for (size_t i = 0; i < keep; ++i) {
        std::vector<AllocationId> list(lists[i].begin(), lists[i].end());
        if (i == 0 && extra)
            list.push_back(*extra);
        out.push_back(list);
    }
    return out;
}

} // namespace

class TestCache : public QObject {
    Q_OBJECT

private slots:
    // The window's head start: taken once by the loader that asks for the same path through the
    // same cache, equal to a plain load; a second take gets none. A loader asking for another
    // path or through another cache first gives it up: the file is then loaded as without one.
    void headStartIsTakenOnceBySamePath()
    {
        const std::string file = (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
        QVERIFY(!takeHeadStart(file, nullptr, {}, {}));
        beginHeadStart(file, nullptr);
        QVERIFY(!takeHeadStart(file + ".other", nullptr, {}, {}));
        QVERIFY(!takeHeadStart(file, nullptr, {}, {}));
        const SnapshotCache other(QDir::tempPath().toStdString() + "/memlens-headstart-test");
        beginHeadStart(file, nullptr);
        QVERIFY(!takeHeadStart(file, &other, {}, {}));
        QVERIFY(!takeHeadStart(file, nullptr, {}, {}));
        beginHeadStart(file, nullptr);
        std::optional<CachedSnapshot> taken = takeHeadStart(file, nullptr, {}, {});
        QVERIFY(taken && taken->snapshot);
        QVERIFY(!taken->fromCache);
        QVERIFY(difference(*taken->snapshot, *loadSnapshot(file)).isEmpty());
        QVERIFY(!takeHeadStart(file, nullptr, {}, {}));
    }

    // Narrow columns (times, sizes) keep every 64-bit value, whatever its neighbours: against a
    // plain vector, across blocks that must widen at their first, middle and last entry, at the
    // types' ends, after shrinking and growing; and the cache's arrays are refused when their
    // blocks do not describe the entries.
    void narrowColumnsKeepEveryValue()
    {
        std::vector<int64_t> want;
        for (int64_t i = 0; i < 1000; ++i)
            want.push_back(1'700'000'000'000'000 + i * 37);
        want[256] = INT64_MIN;              // the first entry of the second block: its base
        want[300] = want[299] + (int64_t{1} << 31); // just beyond the difference a block holds
        want[511] = INT64_MAX;
        want[600] = want[599] - (int64_t{1} << 31); // just within it, downwards
        want[767] = 0;
        NarrowColumn<int64_t> times;
        for (int64_t v : want)
            times.push_back(v);
        QCOMPARE(times.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i)
            QCOMPARE(times[i], want[i]);
        QVERIFY(std::equal(times.begin(), times.end(), want.begin()));
        QCOMPARE(times.wide().size(), size_t(256 + 256)); // the second block and the third (0 after 1.7e15)
        times.resize(400);
        QCOMPARE(times.size(), size_t(400));
        QCOMPARE(times[399], want[399]);
        times.resize(700);
        QCOMPARE(times[399], want[399]);
        QCOMPARE(times[699], int64_t(0));

        NarrowColumn<uint64_t> sizes;
        const std::vector<uint64_t> big{512, UINT64_MAX, 0, uint64_t{22} << 30, 1, UINT64_MAX - 1};
        for (uint64_t v : big)
            sizes.push_back(v);
        for (size_t i = 0; i < big.size(); ++i)
            QCOMPARE(sizes[i], big[i]);

        using Block = NarrowColumn<uint64_t>::Block;
        auto adopts = [](size_t offsets, std::vector<Block> blocks, size_t wide) {
            PodArray<int32_t> o;
            o.resize(offsets);
            PodArray<Block> b;
            for (const Block &x : blocks)
                b.push_back(x);
            PodArray<uint64_t> w;
            w.resize(wide);
            NarrowColumn<uint64_t> c;
            return c.adopt(std::move(o), std::move(b), std::move(w));
        };
        const uint32_t narrow = NarrowColumn<uint64_t>::kNotWide;
        QVERIFY(adopts(300, {{0, narrow, 0}, {5, 0, 0}}, 44));
        QVERIFY(!adopts(300, {{0, narrow, 0}}, 0));             // a block short
        QVERIFY(!adopts(300, {{0, narrow, 0}, {5, 0, 0}}, 43)); // wide values short
        QVERIFY(!adopts(300, {{0, narrow, 0}, {5, 1, 0}}, 45)); // wide values out of place
        QVERIFY(!adopts(300, {{0, narrow, 0}, {5, narrow, 0}}, 1)); // wide values unused
    }

    void reopenEqualsColdLoad_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &f : cacheableFiles())
            QTest::newRow(qPrintable(QFileInfo(f).dir().dirName() + "/" + QFileInfo(f).fileName())) << f;
    }
    void reopenEqualsColdLoad()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        const SnapshotCache cache(dir.path().toStdString());
        const auto key = SnapshotCache::keyOf(file.toStdString());
        QVERIFY(key);
        QVERIFY(!cache.read(*key)); // nothing yet
        const CachedSnapshot cold = loadSnapshotCached(file.toStdString(), {}, &cache);
        QVERIFY(!cold.fromCache);
        QVERIFY(cold.writing);
        const_cast<CachedSnapshot &>(cold).writing.reset(); // wait for the entry
        const CachedSnapshot warm = loadSnapshotCached(file.toStdString(), {}, &cache);
        QVERIFY(warm.fromCache);
        QVERIFY(!warm.writing);
        const QString diff = difference(*cold.snapshot, *warm.snapshot);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(summaryOf(*warm.snapshot, "f"), summaryOf(*cold.snapshot, "f"));
    }

    // The window's load writes the cache entry once its stages are done (its first frame does
    // not share the cores with compressing the snapshot); a write never started writes nothing.
    void entryWrittenAfterTheStages()
    {
        const std::string file = (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
        const auto key = SnapshotCache::keyOf(file);
        QVERIFY(key);
        {
            QTemporaryDir dir;
            const SnapshotCache cache(dir.path().toStdString());
            CachedSnapshot loaded = loadSnapshotCached(file, {}, &cache, {}, CacheWriting::WhenStarted);
            QVERIFY(loaded.writing);
            loaded.writing.reset();
            QVERIFY(!cache.read(*key));
        }
        QTemporaryDir dir;
        const SnapshotCache cache(dir.path().toStdString());
        bool timeline = false;
        PipelineSink sink;
        sink.timeline = [&](std::shared_ptr<const TimelineLayouts>) { timeline = true; };
        runDocumentPipeline(file, nullptr, sink, StopAfter::Timeline, &cache, CacheWriting::WhenStarted);
        QVERIFY(timeline);
        QVERIFY(cache.read(*key));
        QVERIFY(columnsStored(cache, *key)); // for the next reopen to map

    }

    // The window's order: the document without advice, the timeline on it, then the same layouts
    // with a document whose advice is the advise question's answer (what `memlens advise` prints),
    // on the same index.
    void adviceFollowsTheFirstFrame()
    {
        const std::string file = (corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString();
        std::shared_ptr<const Document> first;
        std::shared_ptr<const TimelineLayouts> timeline, advised;
        std::vector<std::string> order;
        PipelineSink sink;
        sink.advise = [](const IndexedDevice &d, const Inferred<int> &gpus) { return answerAdvise(d, {}, gpus).advice; };
        sink.document = [&](std::shared_ptr<const Document> d) { first = d; order.push_back("document"); };
        sink.timeline = [&](std::shared_ptr<const TimelineLayouts> t) { timeline = t; order.push_back("timeline"); };
        sink.advised = [&](std::shared_ptr<const TimelineLayouts> t) { advised = t; order.push_back("advised"); };
        runDocumentPipeline(file, nullptr, sink, StopAfter::Timeline);
        QCOMPARE(order, (std::vector<std::string>{"document", "timeline", "advised"}));
        QCOMPARE(timeline->document, first);
        const DeviceData &before = first->devices.begin()->second;
        QVERIFY(before.advice.fixes.empty() && !before.advice.setup.params.value);
        QVERIFY(advised->document != first);
        QCOMPARE(advised->layouts, timeline->layouts);
        for (const auto &[device, d] : advised->document->devices) {
            QCOMPARE(d.index, first->device(device)->index);
            AdviseRequest request;
            request.device = device;
            const Advice want = answerAdvise(file, first->snapshot, request).advice;
            QVERIFY(!want.fixes.empty());
            QCOMPARE(adviceJson("x", device, d.advice).dump(), adviceJson("x", device, want).dump());
        }
    }

    // With `indexed` asked for (the window), the layouts come first on a document of each
    // device's index and basic figures: the peak, reserved and OOM figures the summary has, no
    // categories, no phases or steps (drawn once the steps are known), `summarised` false; then
    // the same layouts with the summarised document, then the advice. Without it, as before.
    void firstFrameBeforeTheSummary()
    {
        const std::string file = (corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString();
        std::shared_ptr<const TimelineLayouts> indexed, timeline, advised;
        std::vector<std::string> order;
        PipelineSink sink;
        sink.advise = [](const IndexedDevice &d, const Inferred<int> &gpus) { return answerAdvise(d, {}, gpus).advice; };
        sink.indexed = [&](std::shared_ptr<const TimelineLayouts> t) { indexed = t; order.push_back("indexed"); };
        sink.document = [&](std::shared_ptr<const Document>) { order.push_back("document"); };
        sink.timeline = [&](std::shared_ptr<const TimelineLayouts> t) { timeline = t; order.push_back("timeline"); };
        sink.advised = [&](std::shared_ptr<const TimelineLayouts> t) { advised = t; order.push_back("advised"); };
        runDocumentPipeline(file, nullptr, sink, StopAfter::Timeline);
        QCOMPARE(order, (std::vector<std::string>{"indexed", "document", "timeline", "advised"}));
        QCOMPARE(indexed->layouts, timeline->layouts);
        QCOMPARE(advised->layouts, timeline->layouts);
        for (const auto &[device, basic] : indexed->document->devices) {
            const DeviceData &whole = *timeline->document->device(device);
            QCOMPARE(basic.index, whole.index);
            QVERIFY(!basic.summarised && whole.summarised);
            QVERIFY(!basic.categories && whole.categories);
            QVERIFY(basic.summary.phases.empty() && basic.summary.steps.empty() && !basic.summary.layers);
            QCOMPARE(basic.summary.peakActiveBytes, whole.summary.peakActiveBytes);
            QCOMPARE(basic.summary.peakIndex, whole.summary.peakIndex);
            QCOMPARE(basic.summary.peakReservedBytes, whole.summary.peakReservedBytes);
            QCOMPARE(basic.summary.ooms.size(), whole.summary.ooms.size());
            QCOMPARE(basic.summary.ooms.front().requested, whole.summary.ooms.front().requested);
            QCOMPARE(basic.stackedPeakBytes, whole.stackedPeakBytes);
            QVERIFY(!whole.summary.phases.empty());
        }
        order.clear();
        sink.indexed = {};
        runDocumentPipeline(file, nullptr, sink, StopAfter::Timeline);
        QCOMPARE(order, (std::vector<std::string>{"document", "timeline", "advised"}));
    }

    // Every stage of a load says what it is doing and its fraction moves: a cold open reads the
    // file, a reopen reads the cache entry (not "Indexing 0 %" throughout), then both index,
    // summarise, advise and prepare the timeline, the bar never going back within a stage.
    void eachLoadStageIsReported()
    {
        const std::string file = (corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst").toStdString();
        QTemporaryDir dir;
        const SnapshotCache cache(dir.path().toStdString());
        for (bool warm : {false, true}) {
            std::vector<std::pair<LoadStage, double>> reports;
            PipelineSink sink;
            sink.advise = [](const IndexedDevice &d, const Inferred<int> &gpus) { return answerAdvise(d, {}, gpus).advice; };
            sink.progress = [&](double fraction, LoadStage stage) { reports.emplace_back(stage, fraction); };
            runDocumentPipeline(file, nullptr, sink, StopAfter::Timeline, &cache);
            std::vector<LoadStage> order;
            for (size_t i = 0; i < reports.size(); ++i) {
                if (order.empty() || order.back() != reports[i].first)
                    order.push_back(reports[i].first);
                else
                    QVERIFY(reports[i].second >= reports[i - 1].second);
            }
            const LoadStage reading = warm ? LoadStage::ReadingCache : LoadStage::Reading;
            QCOMPARE(order, (std::vector<LoadStage>{reading, LoadStage::Indexing, LoadStage::Summarising, LoadStage::Advising, LoadStage::PreparingTimeline}));
            double lastRead = 0;
            for (const auto &[stage, fraction] : reports)
                lastRead = stage == reading ? fraction : lastRead;
            QVERIFY2(lastRead > 0.99, qPrintable(QString("reading ended at %1").arg(lastRead)));
            QCOMPARE(loadStageName(reading), warm ? std::string_view("Reading from the cache") : std::string_view("Reading"));
        }
    }

    // Damage anywhere (header, key, payload) or a cut anywhere: the entry is not believed, and
    // loading through the cache reads the file again and writes a good entry.
    void damagedOrTruncatedEntryIsIgnored()
    {
        const std::string file = (corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle").toStdString();
        QTemporaryDir dir;
        const SnapshotCache cache(dir.path().toStdString());
        const auto key = SnapshotCache::keyOf(file);
        auto original = loadSnapshot(file);
        QVERIFY(cache.write(*key, *original));
        const std::string path = cache.entryPath(*key);
        const std::string good = readAll(path);
        QVERIFY(good.size() > 200);
        for (size_t at : {size_t(0), size_t(9), size_t(20), good.size() / 3, good.size() / 2, good.size() - 5}) {
            std::string bad = good;
            bad[at] = static_cast<char>(bad[at] ^ 0x5a);
            QVERIFY2(!readCacheEntry(bad, *key), qPrintable(QString("flipped byte %1").arg(at)));
        }
        for (size_t cut : {size_t(0), size_t(7), size_t(40), good.size() / 2, good.size() - 1})
            QVERIFY2(!readCacheEntry(std::string_view(good).substr(0, cut), *key), qPrintable(QString("cut at %1").arg(cut)));
        std::string bad = good;
        bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x5a);
        writeAll(path, bad);
        const CachedSnapshot again = loadSnapshotCached(file, {}, &cache);
        QVERIFY(!again.fromCache);
        QVERIFY(difference(*again.snapshot, *original).isEmpty());
        const_cast<CachedSnapshot &>(again).writing.reset();
        QCOMPARE(readAll(path), good); // rewritten whole
    }

    // Large event columns are zstd frames of their own, decompressed on two threads: damage in
    // any of them, or a cut between them, is caught like any other.
    void columnFramesAreCheckedEach()
    {
        // The corpus run tiled to 40,000 entries: its narrow columns (4 bytes an entry) are pieces too.
        QTemporaryDir dir;
        const QString tiled = dir.filePath("tiled.pickle");
        QString error;
        runPythonTool("make_large_snapshot.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", tiled, "--entries", "40000"}, &error);
        QVERIFY2(QFileInfo::exists(tiled), qPrintable(error));
        const std::string file = tiled.toStdString();
        const auto key = SnapshotCache::keyOf(file);
        auto original = loadSnapshot(file);
        const EventTable &t = original->traces.at(0);
        size_t columns = 0;
        // action, addr, size and time (narrow: their offsets), stream, stack, the totals
        for (size_t bytes : {t.count(), t.count() * 8, t.count() * 4, t.count() * 2, t.count() * 4, t.count() * 4,
                             t.allocatedAfter.size() * 8, t.reservedAfter.size() * 8})
            columns += bytes >= kColumnPieceBytes ? 1 : 0;
        QVERIFY2(columns >= 3, qPrintable(QString("%1 events, %2 columns").arg(t.count()).arg(columns)));
        const std::string good = makeCacheEntry(*key, *original);
        auto back = readCacheEntry(good, *key);
        QVERIFY(back);
        QVERIFY(difference(*back, *original).isEmpty());
        const std::string magic("\x28\xb5\x2f\xfd", 4);
        std::vector<size_t> frames;
        for (size_t at = good.find(magic); at != std::string::npos; at = good.find(magic, at + 1))
            frames.push_back(at);
        QVERIFY2(frames.size() > columns, qPrintable(QString::number(frames.size()))); // records before the columns
        frames.push_back(good.size());
        for (size_t i = 0; i + 1 < frames.size(); ++i) {
            std::string bad = good;
            const size_t middle = (frames[i] + frames[i + 1]) / 2;
            bad[middle] = static_cast<char>(bad[middle] ^ 0x5a);
            QVERIFY2(!readCacheEntry(bad, *key), qPrintable(QString("damage in frame %1").arg(i)));
            QVERIFY2(!readCacheEntry(std::string_view(good).substr(0, frames[i + 1] - 1), *key), qPrintable(QString("cut in frame %1").arg(i)));
            if (i > 0)
                QVERIFY2(!readCacheEntry(std::string_view(good).substr(0, frames[i]), *key), qPrintable(QString("cut before frame %1").arg(i)));
        }
    }

    // A changed file (contents, size or time) no longer matches its entry; neither does a
    // foreign entry put in its place.
    void changedFileInvalidatesItsEntry()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath("s.pickle").toStdString();
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", QString::fromStdString(file)));
        const SnapshotCache cache(dir.filePath("cache").toStdString());
        const auto before = SnapshotCache::keyOf(file);
        QVERIFY(cache.write(*before, *loadSnapshot(file)));
        QVERIFY(cache.read(*before));
        // Same size, other bytes in the last MiB, and a new time.
        std::string bytes = readAll(file);
        bytes[bytes.size() - 10] = static_cast<char>(bytes[bytes.size() - 10] ^ 1);
        writeAll(file, bytes);
        const auto after = SnapshotCache::keyOf(file);
        QVERIFY(after->checksum != before->checksum);
        QCOMPARE(cache.entryPath(*after), cache.entryPath(*before)); // same slot...
        QVERIFY(!cache.read(*after));                                 // ...not believed
        // Another file's entry copied into this file's slot.
        const std::string other = (corpusDir() + "/snapshots/resnet50_bf16_sgd/snapshot.pickle").toStdString();
        const auto otherKey = SnapshotCache::keyOf(other);
        writeAll(cache.entryPath(*after), makeCacheEntry(*otherKey, *loadSnapshot(other)));
        QVERIFY(!cache.read(*after));
    }

    // A file over 2 MiB changed in its middle, its size and modification time put back (as cp -p
    // or touch -r leave it), is read again: the bytes the checksum reads did not change, but the
    // inode's change time did. The key read the first and last MiB, size and time only.
    void middleChangeWithTimeKeptInvalidates()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath("big.pickle").toStdString();
        // The 3-step GPT-2 run's pickle with 3 MiB of padding after its STOP: still a snapshot.
        std::string bytes = readAll((corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString()) + std::string(3u << 20, '\0');
        writeAll(file, bytes);
        const SnapshotCache cache(dir.filePath("cache").toStdString());
        const auto before = SnapshotCache::keyOf(file);
        QVERIFY(before && before->size > (2u << 20));
        QVERIFY(cache.write(*before, *loadSnapshot(file)));
        struct stat st {};
        QCOMPARE(::stat(file.c_str(), &st), 0);
        QTest::qWait(20); // a change time the clock can tell apart
        bytes[bytes.size() / 2] = 'x';
        writeAll(file, bytes);
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
        const auto after = SnapshotCache::keyOf(file);
        QCOMPARE(after->size, before->size);
        QCOMPARE(after->mtimeNs, before->mtimeNs);
        QCOMPARE(after->checksum, before->checksum);
        QVERIFY(!cache.read(*after));
    }

    // Reopened while another memlens still writes the entry (a window closed a second after it
    // drew a large file): the read waits for the writer instead of decoding cold. Here the
    // "writer" is a live process's temporary that a thread of this test turns into the entry.
    void readWaitsForAWriterAtWork()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath("s.pickle").toStdString();
        QVERIFY(QFile::copy(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", QString::fromStdString(file)));
        const SnapshotCache cache(dir.filePath("cache").toStdString());
        const auto key = SnapshotCache::keyOf(file);
        QProcess writer; // a live process whose PID names the temporary
        writer.start("sleep", {"30"});
        QVERIFY(writer.waitForStarted());
        std::filesystem::create_directories(dir.filePath("cache").toStdString());
        const std::string temp = cache.entryPath(*key) + ".tmp" + std::to_string(writer.processId());
        writeAll(temp, "partial");
        std::thread finishing([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(600));
            const std::string entry = makeCacheEntry(*key, *loadSnapshot(file));
            writeAll(temp, entry);
            std::filesystem::rename(temp, cache.entryPath(*key));
        });
        const auto read = cache.read(*key);
        finishing.join();
        writer.kill();
        writer.waitForFinished();
        QVERIFY2(read != nullptr, "the read did not wait for the entry being written");
        // A temporary whose writer is gone is not waited for.
        std::filesystem::remove(cache.entryPath(*key));
        writeAll(cache.entryPath(*key) + ".tmp" + std::to_string(writer.processId()), "left by a killed writer");
        QVERIFY(!cache.read(*key));
    }

    // A write that cannot finish leaves no entry and no temporary file.
    void failedWriteLeavesNothing()
    {
        QTemporaryDir dir;
        const std::string file = (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
        const SnapshotCache cache(dir.path().toStdString());
        const auto key = SnapshotCache::keyOf(file);
        std::filesystem::create_directories(cache.entryPath(*key)); // a directory where the entry goes
        QVERIFY(!cache.write(*key, *loadSnapshot(file)));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 0);
        // A cache "directory" that is a file: nothing is written, nothing breaks.
        const std::string notADir = dir.filePath("plain").toStdString();
        writeAll(notADir, "x");
        QVERIFY(!SnapshotCache(notADir).write(*key, *loadSnapshot(file)));
        QCOMPARE(readAll(notADir), std::string("x"));
    }

    // A writer killed mid-entry (kill -9) leaves *.mlcache.tmp<PID>; eviction only looked at
    // *.mlcache and kept it forever. A dead writer's temporary, or a day-old one, is swept; a
    // living writer's is left to finish.
    void staleTemporariesAreSwept()
    {
        QTemporaryDir dir;
        QProcess finished;
        finished.start("/bin/true");
        QVERIFY(finished.waitForFinished());
        const qint64 deadPid = finished.processId() ? finished.processId() : 999999;
        const std::string dead = dir.filePath(QString("0123456789abcdef.mlcache.tmp%1").arg(deadPid)).toStdString();
        const std::string living = dir.filePath(QString("1123456789abcdef.mlcache.tmp%1").arg(::getppid())).toStdString();
        const std::string old = dir.filePath(QString("2123456789abcdef.mlcache.tmp%1").arg(::getppid())).toStdString();
        const std::string other = dir.filePath("notes.tmp123").toStdString();
        for (const std::string &f : {dead, living, old, other})
            writeAll(f, "half an entry");
        std::filesystem::last_write_time(old, std::filesystem::file_time_type::clock::now() - std::chrono::hours(30));
        SnapshotCache(dir.path().toStdString()).evict();
        QVERIFY(!std::filesystem::exists(dead));
        QVERIFY(!std::filesystem::exists(old));
        QVERIFY(std::filesystem::exists(living));
        QVERIFY(std::filesystem::exists(other)); // not the cache's
    }

    // Past the cap, the entries used longest ago go first.
    void evictsTheOldest()
    {
        QTemporaryDir dir;
        const QStringList files = corpusSnapshots();
        std::vector<std::string> entries;
        const SnapshotCache big(dir.path().toStdString(), 1ull << 40);
        uint64_t total = 0;
        for (int i = 0; i < 3; ++i) {
            const auto key = SnapshotCache::keyOf(files[i].toStdString());
            QVERIFY(big.write(*key, *loadSnapshot(files[i].toStdString())));
            entries.push_back(big.entryPath(*key));
            total += std::filesystem::file_size(entries.back());
            std::filesystem::last_write_time(entries.back(), std::filesystem::file_time_type::clock::now() - std::chrono::hours(3 - i));
        }
        const SnapshotCache capped(dir.path().toStdString(), total - std::filesystem::file_size(entries[0]));
        capped.evict();
        QVERIFY(!std::filesystem::exists(entries[0]));
        QVERIFY(std::filesystem::exists(entries[1]) && std::filesystem::exists(entries[2]));
    }

    // The answers kept beside an entry are believed for the same file and executable only, and
    // only whole: any cut, another key or writer, a control character or a byte that is not
    // UTF-8 gives nothing.
    void answersAreBelievedForTheSameFileAndExecutable()
    {
        const CacheKey key{"/runs/a.pickle", 4096, 1, 2, 3, "4096-00"};
        const AnswerList answers{{"summary text", ": pickle\n\xe2\x86\x92 peak 1.00 GiB\n"}, {"summary json", "{\"file\":\"\"}"}};
        const std::string bytes = makeAnswersFile(key, "exe-1", answers);
        QCOMPARE(readAnswersFile(bytes, key, "exe-1"), std::optional(answers));
        QVERIFY(!readAnswersFile(bytes, key, "exe-2"));
        QVERIFY(!readAnswersFile(bytes, key, ""));
        CacheKey touched = key;
        touched.mtimeNs += 1;
        QVERIFY(!readAnswersFile(bytes, touched, "exe-1"));
        for (size_t cut = 0; cut < bytes.size(); ++cut)
            QVERIFY(!readAnswersFile(std::string_view(bytes).substr(0, cut), key, "exe-1"));
        QVERIFY(!readAnswersFile(bytes + "x", key, "exe-1"));
        for (const std::string bad : {"a\x1b[2Jb", "tab\there", "caf\xe9", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "cut\xe2\x86"}) {
            QVERIFY2(!isPrintableAnswer(bad), bad.c_str());
            QVERIFY(!readAnswersFile(makeAnswersFile(key, "exe-1", {{"summary text", bad}}), key, "exe-1"));
        }
        QVERIFY(isPrintableAnswer("plain \xe2\x96\xb8 \xf0\x9f\x94\xa5\n"));
    }

    // A question asked again replaces its answer; past kMaxAnswers the oldest goes. Answer files
    // are evicted with the entries, and a dead writer's temporary answers are swept.
    void answersAreKeptAndEvictedLikeEntries()
    {
        QTemporaryDir dir;
        const std::string file = (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
        const auto key = SnapshotCache::keyOf(file);
        QVERIFY(key);
        const SnapshotCache cache(dir.path().toStdString(), 1ull << 40);
        const StoredAnswers answers(cache, *key);
        QVERIFY(!answers.find("q0"));
        for (size_t i = 0; i <= StoredAnswers::kMaxAnswers; ++i)
            QVERIFY(answers.store("q" + std::to_string(i), "answer " + std::to_string(i) + "\n"));
        QVERIFY(answers.store("q1", "answer again\n"));
        QVERIFY(!answers.find("q0"));
        QCOMPARE(answers.find("q2"), std::optional<std::string>("answer 2\n"));
        QCOMPARE(answers.find("q1"), std::optional<std::string>("answer again\n"));
        QCOMPARE(answers.find("q16"), std::optional<std::string>("answer 16\n"));
        QVERIFY(!answers.store("q", "no\x07" "bell"));
        QVERIFY(cache.write(*key, *loadSnapshot(file)));
        const std::string kept = cache.entryPath(*key) + ".answers";
        std::filesystem::last_write_time(kept, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
        QProcess finished;
        finished.start("/bin/true");
        QVERIFY(finished.waitForFinished());
        const std::string deadTemporary = kept + ".tmp" + std::to_string(finished.processId() ? finished.processId() : 999999);
        writeAll(deadTemporary, "half");
        SnapshotCache(dir.path().toStdString(), std::filesystem::file_size(cache.entryPath(*key))).evict();
        QVERIFY(!std::filesystem::exists(kept));
        QVERIFY(!std::filesystem::exists(deadTemporary));
        QVERIFY(std::filesystem::exists(cache.entryPath(*key)));
    }

    // An index and a layout made from kept parts are the built ones: the same layout parts,
    // the same summary, the same live sets and the same frames, on every corpus file (private
    // pools, blocks from before the trace, several devices and a profiler trace among them).
    void keptIndexesAreTheBuiltOnes()
    {
        for (const QString &file : cacheableFiles()) {
            const auto snapshot = loadSnapshot(file.toStdString());
            std::map<int, std::unique_ptr<DeviceIndex>> indexes;
            std::map<int, std::unique_ptr<TimelineLayout>> layouts;
            KeptDevices built;
            LiveDevices live; // what a load keeps: the index and layout, written without a copy
            for (int d : snapshot->devices()) {
                indexes[d] = std::make_unique<DeviceIndex>(*snapshot, d);
                layouts[d] = std::make_unique<TimelineLayout>(*indexes[d]);
                built[d] = {indexes[d]->parts(), layouts[d]->parts()};
                live[d] = {indexes[d].get(), layouts[d].get()};
            }
            QVERIFY2(encodeIndexes(live) == encodeIndexes(built), qPrintable(file));
            std::optional<KeptDevices> kept = decodeIndexes(encodeIndexes(built), *snapshot);
            QVERIFY2(kept && kept->size() == built.size(), qPrintable(file));
            for (auto &[d, parts] : *kept) {
                QVERIFY(parts.layout == layouts[d]->parts());
                const DeviceIndex index(*snapshot, d, std::move(parts.index));
                const TimelineLayout layout(index, std::move(parts.layout));
                const std::string name = file.toStdString();
                QCOMPARE(summaryJson(*snapshot, name, {{summarizeDevice(*snapshot, index, 10), std::nullopt}}),
                         summaryJson(*snapshot, name, {{summarizeDevice(*snapshot, *indexes[d], 10), std::nullopt}}));
                for (uint32_t k = 0; k <= 8; ++k) {
                    const auto at = TracePoint::afterFirst(index.eventCount() * k / 8);
                    QVERIFY(index.liveAt(at) == indexes[d]->liveAt(at));
                }
                const std::vector<PoolUsage> pools = privatePools(*snapshot, index);
                QVERIFY2(framesOf(layout, index, pools) == framesOf(*layouts[d], *indexes[d], pools), qPrintable(file));
            }
        }
    }

    // A FIFO in place of an entry, or of the columns beside it, is not a file the cache reads:
    // refused at once (the entry read cold; the columns from the entry), never waited on.
    void fifosInPlaceOfCacheFilesAreRefused()
    {
        const std::string file = (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
        QTemporaryDir dir;
        const SnapshotCache cache(dir.filePath("cache").toStdString());
        const auto key = SnapshotCache::keyOf(file);
        QVERIFY(key);
        QVERIFY(QDir().mkpath(QString::fromStdString(cache.directory())));
        QCOMPARE(::mkfifo(cache.entryPath(*key).c_str(), 0600), 0);
        QVERIFY(!cache.read(*key));
        QVERIFY(std::filesystem::remove(cache.entryPath(*key)));
        const auto cold = loadSnapshot(file);
        QVERIFY(cache.write(*key, *cold));
        QCOMPARE(::mkfifo((cache.entryPath(*key) + ".columns").c_str(), 0600), 0);
        const auto warm = cache.read(*key);
        QVERIFY(warm);
        const QString diff = difference(*cold, *warm);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // A reopen takes the event columns kept as they are beside the entry (the window's load keeps
    // them): mapped where a column is a mapping of its own, read where it is not, the snapshot the
    // same either way. Damaged, cut or another entry's columns are refused: the columns come from
    // the entry's frames, the same snapshot, and the file is removed (to be written again).
    void reopenMapsStoredColumns()
    {
        SynthSnapshot synth;
        synth.traces.resize(1);
        uint64_t x = 88172645463325252ull;
        for (uint32_t k = 0; k < 300000; ++k) { // addresses: 600 k entries x 8 bytes, a mapping of its own
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const uint64_t addr = 0x7f0000000000ull + (x % (1u << 24)) * 512;
            synth.traces[0].push_back({"alloc", addr, 512 + k % 7 * 512, 2 * k});
            synth.traces[0].push_back({"free_completed", addr, 512 + k % 7 * 512, 2 * k + 1});
        }
        QTemporaryDir dir;
        const std::string file = dir.filePath("run.pickle").toStdString();
        writeAll(file, synth.pickle());
        const SnapshotCache cache(dir.filePath("cache").toStdString());
        const auto key = SnapshotCache::keyOf(file);
        QVERIFY(key);
        const auto cold = loadSnapshot(file);
        QVERIFY(cache.write(*key, *cold));
        const std::string columns = cache.entryPath(*key) + ".columns";
        const auto sameAsCold = [&](const Snapshot &warm) {
            const QString diff = difference(*cold, warm);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        };
        QVERIFY(!columnsStored(cache, *key));
        Snapshot categoriesOnly = *cold; // a memory-timeline file's: never cached, nothing kept beside
        categoriesOnly.categories.emplace();
        QVERIFY(!storeColumns(cache, *key, categoriesOnly));
        QVERIFY(!columnsStored(cache, *key));
        QVERIFY(storeColumns(cache, *key, *cold));
        QVERIFY(columnsStored(cache, *key));
        const std::string good = readAll(columns);
        {
            const auto warm = cache.read(*key);
            QVERIFY(warm);
            sameAsCold(*warm);
            QVERIFY(mappedFrom(warm->traces[0].addr.data(), columns));
            QVERIFY(columnsStored(cache, *key));
        }
        const std::string addrBytes(reinterpret_cast<const char *>(cold->traces[0].addr.data()), 4096);
        const size_t addrAt = good.find(addrBytes);
        QVERIFY(addrAt != std::string::npos);
        const auto refused = [&](const std::string &bytes) {
            writeAll(columns, bytes);
            const auto warm = cache.read(*key);
            QVERIFY(warm);
            sameAsCold(*warm);
            QVERIFY(!std::filesystem::exists(columns));
        };
        std::string damaged = good;
        damaged[addrAt + 5000] ^= 0x20;
        refused(damaged);
        refused(good.substr(0, addrAt + 8192));
        // Another snapshot's columns, under this file's header: sizes that are not this entry's.
        SynthSnapshot shorter = synth;
        shorter.traces[0].resize(synth.traces[0].size() - 2);
        QVERIFY(storeColumns(cache, *key, *loadSnapshotFromMemory(shorter.pickle(), "shorter.pickle")));
        refused(readAll(columns));
    }

    // A trace long enough to have its entries checked in two halves on two cores: a damaged
    // entry is refused in either half, at either end of it, and the whole accepted.
    void keptIndexesOfALongTraceAreCheckedInBothHalves()
    {
        SynthSnapshot synth;
        synth.traces.resize(1);
        const uint32_t pairs = (DeviceIndex::kFaultInElsewhereFrom / 2) + 1000;
        for (uint32_t k = 0; k < pairs; ++k) {
            const uint64_t addr = 0x7f0000000000ull + (k % 4096) * 1024;
            synth.traces[0].push_back({"alloc", addr, 512, 2 * k});
            synth.traces[0].push_back({"free_completed", addr, 512, 2 * k + 1});
        }
        const std::string bytes = synth.pickle();
        const auto snapshot = loadSnapshotFromMemory(bytes, "long.pickle");
        const DeviceIndex built(*snapshot, 0);
        const size_t n = built.eventCount();
        QVERIFY(n >= DeviceIndex::kFaultInElsewhereFrom);
        const DeviceIndexParts good = built.parts();
        QCOMPARE(DeviceIndex(*snapshot, 0, good).allocationCount(), built.allocationCount());
        const auto count = static_cast<uint32_t>(built.allocationCount());
        // Alloc entries are the even ones: the first, the last of each half, the first of the second.
        for (const size_t at : {size_t{0}, n / 2 - 2, n / 2, n / 2 + 2, n - 2}) {
            const auto alloc = static_cast<uint32_t>(at - at % 2);
            QCOMPARE(built.events().action[alloc], Action::Alloc);
            DeviceIndexParts past = good;
            past.eventAllocation[alloc] = AllocationId(count);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DeviceIndex(*snapshot, 0, std::move(past)));
            DeviceIndexParts other = good;
            other.eventAllocation[alloc] = built.allocationOfEvent(EventId(alloc == 0 ? 2 : 0));
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DeviceIndex(*snapshot, 0, std::move(other)));
        }
    }

    // Parts that cannot be the snapshot's index or layout are refused, each check on its own;
    // damaged bytes (any cut, a flipped byte) decode to nothing or to parts that are then refused
    // or fit: never to a crash.
    void keptIndexesThatDoNotFitAreRefused()
    {
        const auto snapshot = loadSnapshot((corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString());
        const DeviceIndex built(*snapshot, 0);
        const TimelineLayout layout(built);
        const DeviceIndexParts good = built.parts();
        const uint32_t count = static_cast<uint32_t>(built.allocationCount());
        uint32_t alloc = 0; // the first alloc entry, and its allocation
        while (built.events().action[alloc] != Action::Alloc)
            ++alloc;
        const uint32_t made = built.allocationOfEvent(EventId(alloc)).index();
        const std::vector<std::function<void(DeviceIndexParts &)>> indexBreaks = {
            [](DeviceIndexParts &p) { p.eventAllocation.pop_back(); },
            [&](DeviceIndexParts &p) { p.eventAllocation[alloc] = AllocationId(count); },
            [&](DeviceIndexParts &p) { p.allocations[made].allocEvent = EventId(alloc + 1); },
            [&](DeviceIndexParts &p) { p.allocations[made].freeCompleted = EventId(alloc); },
            [](DeviceIndexParts &p) { p.allocations.push_back({EventId(1u << 30), kNever, kNever}); },
            [&](DeviceIndexParts &p) { p.initialDetails.push_back({AllocationId(count), {}}); },
            [&](DeviceIndexParts &p) { p.pools.push_back({AllocationId(0), PoolIndex(static_cast<uint32_t>(snapshot->pools.size()))}); },
            [&](DeviceIndexParts &p) { p.segmentLives.push_back({0, 0, 0, EventId::none(), kNever, SegmentId(static_cast<uint32_t>(snapshot->segments.size()))}); },
            [](DeviceIndexParts &p) { p.lifeOfSegmentEvent.push_back({EventId(0), SegmentLifeId(1u << 30)}); },
            [](DeviceIndexParts &p) { p.checkpoints = withLists(p.checkpoints, p.checkpoints.size() - 1, {}); },
            [&](DeviceIndexParts &p) { p.checkpoints = withLists(p.checkpoints, p.checkpoints.size(), AllocationId(count)); },
            [](DeviceIndexParts &p) { p.peak = TracePoint::afterFirst(1u << 30); },
            [](DeviceIndexParts &p) { p.activeOffsets.pop_back(); },
            [](DeviceIndexParts &p) { p.activeBlocks[0].wide = 7; },
            [](DeviceIndexParts &p) { p.implicitEnds.push_back({EventId(1u << 30), AllocationId(0)}); },
        };
        QVERIFY(DeviceIndex(*snapshot, 0, good).allocationCount() == count);
        for (size_t i = 0; i < indexBreaks.size(); ++i) {
            DeviceIndexParts bad = good;
            indexBreaks[i](bad);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DeviceIndex(*snapshot, 0, std::move(bad)));
        }
        const TimelineLayoutParts goodLayout = layout.parts();
        const std::vector<std::function<void(TimelineLayoutParts &)>> layoutBreaks = {
            [](TimelineLayoutParts &p) { ++p.leaves; },
            [](TimelineLayoutParts &p) { p.tree.pop_back(); },
            [](TimelineLayoutParts &p) { p.tree[1].resize(TimelineLayout::kPerNode + 1); },
            [&](TimelineLayoutParts &p) { p.tree[1].push_back(AllocationId(count)); },
            [](TimelineLayoutParts &p) { p.blockPeak.push_back(0); },
            [](TimelineLayoutParts &p) { p.blockPeak[0] = TimelineLayout::kMaxBlock; },
            [](TimelineLayoutParts &p) { p.ghostFrees = {{EventId(5), 10}, {EventId(3), 20}}, p.ghostTotal = 30; },
            [](TimelineLayoutParts &p) { p.ghostFrees = {{EventId(3), 10}, {EventId(5), 20}}, p.ghostTotal = 19; },
            [](TimelineLayoutParts &p) { p.defaultPoolGhostFrees = {{EventId(1u << 30), 1}}, p.defaultPoolGhostTotal = 1; },
        };
        QVERIFY(goodLayout.blockPeak.size() > 1 && goodLayout.tree.size() > 1);
        for (size_t i = 0; i < layoutBreaks.size(); ++i) {
            TimelineLayoutParts bad = goodLayout;
            layoutBreaks[i](bad);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TimelineLayout(built, bad));
        }
        const std::string bytes = encodeIndexes({{0, {good, goodLayout}}});
        QVERIFY(decodeIndexes(bytes, *snapshot));
        for (size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 8)
            QVERIFY(!decodeIndexes(std::string_view(bytes).substr(0, cut), *snapshot));
        QVERIFY(!decodeIndexes(bytes + "x", *snapshot));
        int refused = 0;
        for (size_t at = 0; at < bytes.size(); at += 1 + bytes.size() / 97) {
            std::string flipped = bytes;
            flipped[at] = static_cast<char>(flipped[at] ^ 0x5a);
            std::optional<KeptDevices> kept = decodeIndexes(flipped, *snapshot);
            if (!kept) {
                ++refused;
                continue;
            }
            try {
                const DeviceIndex index(*snapshot, 0, std::move(kept->at(0).index));
                const TimelineLayout fromParts(index, std::move(kept->at(0).layout));
                fromParts.layout(EventId(0), EventId(static_cast<uint32_t>(index.eventCount() - 1)), 9, 5);
            } catch (const std::invalid_argument &) {
                ++refused;
            }
        }
        QVERIFY(refused > 0);
    }

    // A run that repeats itself compresses a thousandfold (the benchmark's tiled run did, and its
    // kept indexes were refused as a decompression bomb): such arrays read back; a count past
    // its bound, or a frame promising other bytes, is refused before anything is allocated.
    void keptArraysReadBackHoweverTheyCompress()
    {
        // Just short of what a reader maps (a PodArray of its own mapping): compressed.
        std::vector<uint32_t> zeros(kOwnMappingBytes / sizeof(uint32_t) - 1, 0), ramp(1 << 10);
        for (size_t i = 0; i < ramp.size(); ++i)
            ramp[i] = static_cast<uint32_t>(i);
        SectionWriter out;
        out.array(zeros);
        out.pod(uint32_t{7});
        out.array(ramp);
        const std::string bytes = out.take();
        QVERIFY(bytes.size() * 64 < zeros.size() * sizeof(uint32_t));
        // One element more and it is kept as it is, to be mapped.
        const std::vector<uint32_t> mappedZeros(zeros.size() + 1, 0);
        SectionWriter kept;
        kept.array(mappedZeros);
        QVERIFY(kept.take().size() > mappedZeros.size() * sizeof(uint32_t));
        PodArray<uint32_t> zerosBack;
        std::vector<uint32_t> rampBack;
        const MemorySectionBytes memory(bytes);
        SectionReader in(memory);
        in.array(zerosBack, zeros.size());
        QCOMPARE(in.pod<uint32_t>(), 7u);
        in.array(rampBack, ramp.size());
        QVERIFY(in.done());
        in.decompress();
        QVERIFY(std::equal(zeros.begin(), zeros.end(), zerosBack.begin()) && zerosBack.size() == zeros.size());
        QVERIFY(rampBack == ramp);
        PodArray<uint32_t> tooMany;
        SectionReader bounded(memory);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bounded.array(tooMany, zeros.size() - 1));
        std::string promisingMore = bytes;
        uint64_t count = zeros.size() + 1;
        std::memcpy(promisingMore.data(), &count, sizeof count);
        const MemorySectionBytes lies(promisingMore);
        SectionReader lying(lies);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lying.array(tooMany, count));
    }

    // Arrays come back whole whichever way each piece is kept: compressed (zeros), as they are
    // with a hash (bytes that do not compress, longer than a piece), from memory or straight
    // from a file; a damaged piece of either kind is refused.
    void keptArraysReadBackInPieces()
    {
        const size_t perPiece = kPieceBytes / sizeof(uint64_t);
        std::vector<uint64_t> zeros(perPiece / 2 + 5, 0), noise(perPiece + 3);
        uint64_t x = 88172645463325252ull;
        for (uint64_t &v : noise) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v = x;
        }
        // `fileOffset`: where the bytes will start in their file.
        const auto encode = [&](uint64_t fileOffset, bool withNoise) {
            SectionWriter out(fileOffset);
            out.array(zeros);
            if (withNoise)
                out.array(noise);
            return out.take();
        };
        const std::string bytes = encode(0, true);
        // Zeros compress; the noise is kept as it is (its two pieces and their hashes, the first
        // where a page starts).
        QVERIFY(bytes.size() > noise.size() * sizeof(uint64_t));
        QVERIFY(bytes.size() < noise.size() * sizeof(uint64_t) + zeros.size() * sizeof(uint64_t) / 64 + kPageBytes);
        const size_t noiseAt = std::string_view(bytes).find(std::string_view(reinterpret_cast<const char *>(noise.data()), 64));
        QCOMPARE(noiseAt % kPageBytes, size_t{0});
        const auto readBack = [&](const SectionBytes &source, PodArray<uint64_t> &noiseBack) {
            PodArray<uint64_t> zerosBack;
            std::vector<uint64_t> noiseCopied;
            SectionReader in(source);
            in.array(zerosBack, zeros.size());
            in.array(noiseBack, noise.size());
            QVERIFY(in.done());
            in.decompress();
            QVERIFY(zerosBack.size() == zeros.size() && std::equal(zeros.begin(), zeros.end(), zerosBack.begin()));
            QVERIFY(noiseBack.size() == noise.size() && std::equal(noise.begin(), noise.end(), noiseBack.begin()));
            SectionReader again(source);
            again.array(zerosBack, zeros.size());
            again.array(noiseCopied, noise.size()); // not a mapping of its own: read
            again.decompress();
            QVERIFY(noiseCopied == noise);
        };
        PodArray<uint64_t> fromMemory, mapped;
        readBack(MemorySectionBytes(bytes), fromMemory);
        QTemporaryDir dir;
        const std::string path = dir.filePath("sections").toStdString();
        const std::string head = "head";
        const std::string fileBytes = encode(head.size(), true);
        std::ofstream("" + path, std::ios::binary) << head << fileBytes;
        const int fd = ::open(path.c_str(), O_RDONLY);
        QVERIFY(fd >= 0);
        // From a file, the noise's first piece is the file's pages, mapped into the array.
        readBack(FileSectionBytes(fd, head.size(), fileBytes.size()), mapped);
        QVERIFY(mappedFrom(mapped.data(), path));
        QVERIFY(!mappedFrom(mapped.data() + kPieceBytes / sizeof(uint64_t), path)); // the last piece, shorter than a page's worth
        ::close(fd);
        const auto refusedWith = [&](size_t at) {
            std::string damaged = bytes;
            damaged[at] ^= 0x10;
            const MemorySectionBytes memory(damaged);
            PodArray<uint64_t> a, b;
            SectionReader in(memory);
            in.array(a, zeros.size());
            in.array(b, noise.size());
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, in.decompress());
        };
        refusedWith(bytes.size() - 100);              // in the noise's last piece
        refusedWith(bytes.size() - sizeof(uint64_t)); // its hash
        refusedWith(noiseAt + 1000);                  // its first piece
        refusedWith(encode(0, false).size() - 2);     // the zeros' last frame (its checksum)
    }

    // Opened again through the cache, a file's first frame is drawn from the index and layout
    // kept beside its entry: kept parts that fit but are wrong (each block's peak moved) show in
    // the frames; damaged or ill-fitting ones are built again (and kept in their place), and the
    // frames are the cold load's.
    void reopenDrawsFromKeptIndexes()
    {
        QTemporaryDir dir;
        const std::string file = (corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle").toStdString();
        const std::string other = (corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString();
        const SnapshotCache cache(dir.path().toStdString());
        const auto key = SnapshotCache::keyOf(file);
        const LoadedDocument cold = loadDocument(file);
        const auto framesAt = [&](const LoadedDocument &d) {
            const DeviceData &data = *d.timeline->document->device(0);
            return framesOf(*d.timeline->layout(0), *data.index, data.pools);
        };
        loadDocument(file, StopAfter::Timeline, &cache);
        const std::string keptPath = cache.entryPath(*key) + ".indexes";
        QVERIFY(std::filesystem::exists(keptPath));
        QVERIFY(framesAt(loadDocument(file, StopAfter::Timeline, &cache)) == framesAt(cold));
        const auto snapshot = loadSnapshot(file);
        const DeviceIndex index(*snapshot, 0);
        KeptDevices kept = *readStoredIndexes(cache, *key, *snapshot);
        TimelineLayoutParts misplaced = kept.at(0).layout;
        for (size_t b = 0; b < misplaced.blockPeak.size(); ++b)
            misplaced.blockPeak[b] = static_cast<uint32_t>(b * TimelineLayout::kMaxBlock);
        QVERIFY(storeIndexes(cache, *key, {{0, {index.parts(), misplaced}}}));
        QVERIFY(framesAt(loadDocument(file, StopAfter::Timeline, &cache)) != framesAt(cold));
        // Another file's under this key do not decode as this one's; parts that decode but do not
        // fit (an alloc entry that starts no allocation) are refused: both are built again, and
        // kept again in their place.
        const auto otherSnapshot = loadSnapshot(other);
        const DeviceIndex otherIndex(*otherSnapshot, 0);
        QVERIFY(storeIndexes(cache, *key, {{0, {otherIndex.parts(), TimelineLayout(otherIndex).parts()}}}));
        QVERIFY(framesAt(loadDocument(file, StopAfter::Timeline, &cache)) == framesAt(cold));
        DeviceIndexParts unfit = index.parts();
        uint32_t alloc = 0;
        while (index.events().action[alloc] != Action::Alloc)
            ++alloc;
        unfit.eventAllocation[alloc] = AllocationId::none();
        QVERIFY(storeIndexes(cache, *key, {{0, {std::move(unfit), cold.timeline->layout(0)->parts()}}}));
        QVERIFY(readStoredIndexes(cache, *key, *snapshot)); // it decodes
        QVERIFY(framesAt(loadDocument(file, StopAfter::Timeline, &cache)) == framesAt(cold));
        const std::optional<KeptDevices> keptAgain = readStoredIndexes(cache, *key, *snapshot);
        QVERIFY(keptAgain && keptAgain->at(0).layout == cold.timeline->layout(0)->parts());
        QCOMPARE(keptAgain->at(0).index.eventAllocation[alloc], index.allocationOfEvent(EventId(alloc)));
        std::filesystem::resize_file(keptPath, std::filesystem::file_size(keptPath) - 3);
        QVERIFY(framesAt(loadDocument(file, StopAfter::Timeline, &cache)) == framesAt(cold));
    }

    // Hostile payloads: counts past the end, ids past their tables, bad flags.
    void hostilePayloadsAreRefused()
    {
        auto original = loadSnapshot((corpusDir() + "/snapshots/streams_pending_free/snapshot.pickle").toStdString());
        const std::string good = encodeSnapshot(*original);
        QVERIFY(decodeSnapshot(good));
        int refused = 0;
        for (size_t at = 0; at < good.size(); at += 97) {
            std::string bad = good;
            bad[at] = static_cast<char>(0xff);
            try {
                auto s = decodeSnapshot(bad);
                QVERIFY(s); // accepted only if still consistent
            } catch (const CacheFormatError &) {
                ++refused;
            }
        }
        QVERIFY(refused > 0);
        QVERIFY_THROWS_EXCEPTION(CacheFormatError, decodeSnapshot(std::string_view(good).substr(0, good.size() - 1)));
        QVERIFY_THROWS_EXCEPTION(CacheFormatError, decodeSnapshot(good + "x"));
    }
};

QTEST_GUILESS_MAIN(TestCache)
#include "tst_cache.moc"
