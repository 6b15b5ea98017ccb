// Memory pools in the summary: reserved and allocated bytes per pool, checked against the
// segments' own segment_pool_id sums (computed by the Python that wrote the file), what made each
// private pool, and the device a file opens on when several devices recorded.
#include "CorpusFiles.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "figures/SnapshotSummary.h"
#include "decode/SnapshotLoader.h"
#include "pipeline/DocumentPipeline.h"
#include "report/SummaryReport.h"

#include <QFileInfo>
#include <QJsonArray>
#include <map>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace memlens;

namespace {

// The file and the sums per "a,b" pool id that make_private_pools.py printed.
struct PoolFile {
    QString path;
    QJsonObject sums;
};

PoolFile poolFile(QTemporaryDir &dir, const QStringList &extra = {})
{
    const QString out = dir.filePath("pools.pickle");
    QString error;
    const QByteArray printed = runPythonTool("make_private_pools.py", QStringList{corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", out} + extra, &error);
    if (!error.isEmpty())
        qWarning("%s", qPrintable(error));
    return {out, QJsonDocument::fromJson(printed).object()};
}

void checkAgainstSums(const nlohmann::json &pools, const QJsonObject &sums)
{
    QCOMPARE(qsizetype(pools.size()), sums.size());
    for (const auto &p : pools) {
        const QString id = QString("%1,%2").arg(p["pool_id"][0].get<int64_t>()).arg(p["pool_id"][1].get<int64_t>());
        QVERIFY2(sums.contains(id), qPrintable(id));
        const QJsonObject want = sums[id].toObject();
        QCOMPARE(qint64(p["segments"].get<int64_t>()), want["segments"].toInteger());
        QCOMPARE(qint64(p["reserved_bytes"].get<int64_t>()), want["reserved_bytes"].toInteger());
        QCOMPARE(qint64(p["allocated_bytes"].get<int64_t>()), want["allocated_bytes"].toInteger());
        QCOMPARE(p.contains("made_by"), id != "0,0");
    }
}

} // namespace

class TestPools : public QObject {
    Q_OBJECT

private slots:
    // Two private pools beside the default one: the summary's pools equal the segments' sums per
    // segment_pool_id, at the end and at --at end (the allocator state the trace leads to).
    void poolsEqualTheSegmentsSums()
    {
        QTemporaryDir dir;
        const PoolFile file = poolFile(dir);
        QCOMPARE(file.sums.size(), 3);
        const auto snapshot = loadSnapshot(file.path.toStdString());
        const DeviceIndex index(*snapshot, 0);
        DeviceReport report{summarizeDevice(*snapshot, index, 5), summarizePoint(*snapshot, index, index.end(), 5), std::nullopt};
        QVERIFY(report.summary.warnings.empty()); // the file adds up: the trace leads to the final segments
        const nlohmann::json json = summaryJsonObject(*snapshot, file.path.toStdString(), {report});
        checkAgainstSums(json["devices"][0]["pools"], file.sums);
        checkAgainstSums(json["devices"][0]["at"]["allocator"]["pools"], file.sums);
    }

    // What made each private pool, in words, and the KV cache on the summary's first lines.
    void privatePoolsSayWhatMadeThem()
    {
        QTemporaryDir dir;
        const PoolFile file = poolFile(dir);
        const auto snapshot = loadSnapshot(file.path.toStdString());
        const DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QCOMPARE(s.poolsAtEnd.size(), size_t(3));
        QVERIFY(!s.poolsAtEnd[0].isPrivate());
        const PoolShare &kv = s.poolsAtEnd[1], &graph = s.poolsAtEnd[2];
        QVERIFY((kv.pool == std::pair<int64_t, int64_t>{0, 1}));
        QVERIFY2(kv.madeBy.starts_with("vLLM's sleep-mode allocator"), kv.madeBy.c_str());
        QVERIFY((graph.pool == std::pair<int64_t, int64_t>{1, 0}));
        QVERIFY2(graph.madeBy.starts_with("CUDA graph capture at serve.py:61:capture"), graph.madeBy.c_str());
        const std::string text = summaryText(*snapshot, "pools.pickle", {DeviceReport{s, std::nullopt, std::nullopt}});
        const size_t pools = text.find("Pools at the end"), steps = text.find("Steps");
        QVERIFY(pools != std::string::npos && pools < steps);
        QVERIFY(text.find("(0, 1): 22.0 GiB reserved in 1 segment, ") != std::string::npos);
    }

    // What the pools hold, by what made it: vLLM's KV cache (its initialize_cache) is the KV cache
    // category, Megatron's DDP buffers in a MemPool are parameters and gradients by the order of
    // their lines in _ParamAndGradBuffer.__init__ (param_data above grad_data), each total equal
    // to what make_private_pools.py wrote (before: all "unknown"). Megatron without the
    // distributed optimizer makes grad_data alone: one line seen, gradients.
    void poolsSayWhatTheyHold()
    {
        QTemporaryDir dir;
        const PoolFile file = poolFile(dir, {"--megatron-gib", "32"});
        const QJsonObject megatron = file.sums["megatron"].toObject();
        QVERIFY(megatron["parameter"].toInteger() > 0 && megatron["gradient"].toInteger() > megatron["parameter"].toInteger());
        const auto snapshot = loadSnapshot(file.path.toStdString());
        const DeviceIndex index(*snapshot, 0);
        const AllocationCategories categories(*snapshot, index);
        std::map<Category, uint64_t> inPools; // over the private pools' allocations alive at the end
        for (AllocationId id : index.liveAt(index.end())) {
            const PoolIndex pool = index.events().poolOf(index.allocation(id).allocEvent);
            if (snapshot->poolId(pool) != std::pair<int64_t, int64_t>{0, 0})
                inPools[categories.of(id)] += index.requestedBytes(id);
        }
        QCOMPARE(qint64(inPools[Category::KvCache]), file.sums["kv_cache"].toInteger());
        QCOMPARE(qint64(inPools[Category::Parameter]), megatron["parameter"].toInteger());
        QCOMPARE(qint64(inPools[Category::Gradient]), megatron["gradient"].toInteger());
        QCOMPARE(categories.totalsAt(index.end())[size_t(Category::KvCache)], uint64_t(file.sums["kv_cache"].toInteger()));

        // The gradient buffers alone, as without the distributed optimizer.
        QTemporaryDir other;
        const PoolFile gradsOnly = poolFile(other, {"--megatron-gib", "32", "--no-distributed-optimizer"});
        const auto grads = loadSnapshot(gradsOnly.path.toStdString());
        const DeviceIndex gradsIndex(*grads, 0);
        const AllocationCategories gradsCategories(*grads, gradsIndex);
        const QJsonObject gradsMegatron = gradsOnly.sums["megatron"].toObject();
        QCOMPARE(gradsMegatron["parameter"].toInteger(), qint64(0));
        QCOMPARE(gradsCategories.totalsAt(gradsIndex.end())[size_t(Category::Gradient)], categories.totalsAt(index.end())[size_t(Category::Gradient)]);
        QCOMPARE(qint64(gradsCategories.totalsAt(gradsIndex.end())[size_t(Category::Parameter)]),
                 qint64(categories.totalsAt(index.end())[size_t(Category::Parameter)]) - megatron["parameter"].toInteger());
    }

    // A run without private pools has the default pool only, and the text says nothing of pools.
    void defaultPoolOnly()
    {
        const QString file = corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
        const auto snapshot = loadSnapshot(file.toStdString());
        const DeviceIndex index(*snapshot, 0);
        const DeviceSummary s = summarizeDevice(*snapshot, index, 5);
        QCOMPARE(s.poolsAtEnd.size(), size_t(1));
        QCOMPARE(s.poolsAtEnd[0].reserved, s.final.reserved);
        QCOMPARE(s.poolsAtEnd[0].segments, s.final.segments);
        QVERIFY(summaryText(*snapshot, "x", {DeviceReport{s, std::nullopt, std::nullopt}}).find("Pools") == std::string::npos);
    }

    // Several devices: the file opens on the one that ran out of memory, and says which did.
    void opensOnTheDeviceThatRanOut()
    {
        QTemporaryDir dir;
        const PoolFile file = poolFile(dir, {"--second-device"});
        const LoadedDocument loaded = loadDocument(file.path.toStdString(), StopAfter::Document);
        QCOMPARE(loaded.document->devices.size(), size_t(2));
        QVERIFY(loaded.document->device(0)->summary.peakActiveBytes > loaded.document->device(1)->summary.peakActiveBytes);
        QCOMPARE(loaded.document->openingDevice(), 1);
        std::vector<DeviceReport> reports;
        for (const auto &[d, data] : loaded.document->devices)
            reports.push_back({data.summary, std::nullopt, std::nullopt});
        const std::string text = summaryText(*loaded.document->snapshot, "pools.pickle", reports);
        QVERIFY(text.find("Ran out of memory on cuda:1 (of 2 devices)") != std::string::npos);
        QVERIFY(summaryJsonObject(*loaded.document->snapshot, "pools.pickle", reports)["oom_devices"] == nlohmann::json::array({1}));
        // Without an OOM, the device with the highest peak.
        const LoadedDocument single = loadDocument((corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle").toStdString(), StopAfter::Document);
        QCOMPARE(single.document->openingDevice(), 0);
    }
};

QTEST_GUILESS_MAIN(TestPools)
#include "tst_pools.moc"
