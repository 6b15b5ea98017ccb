// "What do I change?": the setup inferred from each corpus snapshot against what its run
// recorded in truth.json, and the ranked fixes checked against the measured categories and,
// where the corpus has one, a measured pair.
#include "CorpusFiles.h"
#include "advice/AdviceReport.h"
#include "advice/FixRanking.h"
#include "analysis/AllocationCategories.h"
#include "analysis/DeviceIndex.h"
#include "decode/SnapshotLoader.h"

#include <QJsonArray>
#include <cmath>
#include <map>

using namespace memlens;

namespace {

struct Advised {
    std::shared_ptr<const Snapshot> snapshot;
    Advice advice;
};

Advised adviseFile(const QString &path, std::optional<Moment> at = std::nullopt)
{
    Advised out;
    out.snapshot = loadSnapshot(path.toStdString());
    const DeviceIndex index(*out.snapshot, out.snapshot->devices().front());
    const AllocationCategories categories(*out.snapshot, index);
    AdviceOptions options;
    options.at = at;
    out.advice = advise(*out.snapshot, index, categories, options);
    return out;
}

QString snapshotIn(const QString &folder)
{
    const QStringList files = corpusSnapshots().filter("/" + folder + "/");
    return files.isEmpty() ? QString() : files.filter("/snapshot.").value(0, files.filter("/oom_snapshot.").value(0));
}

} // namespace

class TestAdvice : public QObject {
    Q_OBJECT

private slots:
    void inferredSetup_data()
    {
        QTest::addColumn<QString>("folder");
        for (const char *f : {"gpt2_fp32_adamw", "oom_gpt2_medium_6gib", "resnet50_bf16_sgd", "tinyllama_bf16_ckpt_cpp_stacks", "frag_varlen_gpt2",
                              "streams_pending_free"})
            QTest::newRow(f) << QString(f);
    }

    // Every figure the run recorded: parameters within 1 %, the optimizer, the dtype and
    // autocast, tokens (batch × sequence) where the run had one sequence length, the image
    // batch, checkpointing.
    void inferredSetup()
    {
        QFETCH(QString, folder);
        const QJsonObject truth = readJsonObject(corpusDir() + "/snapshots/" + folder + "/truth.json");
        QVERIFY(!truth.isEmpty());
        const Advised a = adviseFile(snapshotIn(folder));
        const InferredSetup &s = a.advice.setup;
        if (!truth.contains("params")) {
            // Tensors made by hand, no model: nothing to infer, and nothing made up.
            QVERIFY(!s.params.value);
            QCOMPARE(s.optimizer.value, std::optional<Optimizer>(Optimizer::None));
            QVERIFY(!s.preset.value);
            return;
        }
        const double params = truth["params"].toDouble();
        QVERIFY2(s.params.value, s.params.how.c_str());
        QVERIFY2(std::abs(double(*s.params.value) - params) / params <= 0.01, qPrintable(QString::number(*s.params.value)));
        QVERIFY2(s.trainableParams.value && std::abs(double(*s.trainableParams.value) - params) / params <= 0.01, s.trainableParams.how.c_str());
        QCOMPARE(QString::fromStdString(s.optimizer.value ? optimizerName(*s.optimizer.value) : ""), truth["optimizer"].toString().toLower());
        const QString dtype = truth["dtype"].toString();
        QCOMPARE(*s.autocast.value, dtype.endsWith("-autocast"));
        QCOMPARE(QString::fromStdString(s.paramDtype.value ? precisionName(*s.paramDtype.value) : ""), dtype.endsWith("-autocast") ? QString("fp32") : dtype);
        QCOMPARE(s.checkpointing.value.value_or(false), truth["checkpointing"].toBool());
        if (truth.contains("seq")) {
            QVERIFY2(s.tokens.value, s.tokens.how.c_str());
            QCOMPARE(qint64(*s.tokens.value), qint64(truth["batch"].toInt()) * truth["seq"].toInt());
        }
        if (truth.contains("image")) {
            QVERIFY2(s.batch.value, s.batch.how.c_str());
            QCOMPARE(qint64(*s.batch.value), qint64(truth["batch"].toInt()));
        }
        QVERIFY(s.preset.value); // every corpus model is one of the presets
    }

    // Fixes: largest saving first, peak after = peak − saving, and no fix saves more than the
    // measured bytes of what it changes.
    void fixesAddUp_data()
    {
        inferredSetup_data();
    }

    void fixesAddUp()
    {
        QFETCH(QString, folder);
        const Advised a = adviseFile(snapshotIn(folder));
        const Advice &adv = a.advice;
        std::map<std::string, uint64_t> measured;
        for (size_t k = 0; k < kCategoryCount; ++k)
            measured[std::string(categoryName(Category(k)))] = adv.categories[k];
        measured["logits"] = adv.logitsBytes;
        measured["attention_scores"] = adv.attentionScoreBytes;
        measured["reserved"] = adv.reservedBytes;
        uint64_t total = 0;
        for (size_t k = 0; k < kCategoryCount; ++k)
            total += adv.categories[k];
        QVERIFY(adv.peakBytes >= total);
        for (size_t i = 0; i < adv.fixes.size(); ++i) {
            const Fix &f = adv.fixes[i];
            QVERIFY2(f.savesBytes > 0, f.technique.c_str());
            if (i > 0) {
                // What fits first, least effort first, then by saving; then the rest by saving.
                const Fix &p = adv.fixes[i - 1];
                const bool pf = p.fits.value_or(false), ff = f.fits.value_or(false);
                QVERIFY2(pf || !ff, f.technique.c_str());
                if (pf && ff)
                    QVERIFY2(p.effort < f.effort || (p.effort == f.effort && p.savesBytes >= f.savesBytes), f.technique.c_str());
                else if (pf == ff)
                    QVERIFY2(p.savesBytes >= f.savesBytes, f.technique.c_str());
            }
            uint64_t bound = 0;
            for (const std::string &c : f.affects)
                bound += measured.at(c);
            QVERIFY2(uint64_t(f.savesBytes) <= bound + 1, qPrintable(QString::fromStdString(f.technique) + " saves more than it touches"));
            if (f.affects != std::vector<std::string>{"reserved"})
                QVERIFY2(std::llabs(int64_t(adv.peakBytes) - f.savesBytes - int64_t(f.peakAfterBytes)) <= 1, f.technique.c_str());
            QVERIFY(!f.why.empty());
        }
        if (adv.setup.params.value)
            QVERIFY(adv.fixes.size() >= 3);
    }

    // The OOM: capacity from the OOM entry. The device reported 72 GiB free, so the 6 GiB
    // per-process limit stopped it: the capacity is at least the reserved peak before the OOM
    // (torch's max_memory_reserved) and at most the budget. The allocator fixes are priced by
    // replaying the trace: expandable segments get through it within the capacity, saving no
    // more than what stood free in reserved segments (torch's message) plus the failed request,
    // and never reserving less than torch's allocated peak plus that request.
    void oomCapacityAndFragmentation()
    {
        const Advised a = adviseFile(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const Advice &adv = a.advice;
        const QJsonObject truth = readJsonObject(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/truth.json");
        QVERIFY(adv.oom);
        QVERIFY(adv.capacity);
        QCOMPARE(qint64(*adv.capacity), qint64(truth["peak_reserved"].toDouble()));
        QVERIFY(*adv.capacity <= uint64_t(truth["budget_bytes"].toDouble()));
        const auto frag = std::find_if(adv.fixes.begin(), adv.fixes.end(), [](const Fix &f) { return f.technique == "expandable_segments"; });
        QVERIFY(frag != adv.fixes.end());
        QVERIFY(frag->fits.value_or(false));
        QVERIFY(frag->peakAfterBytes <= *adv.capacity);
        const double request = truth["oom_observer"].toObject()["alloc"].toDouble();
        // truth: "120.14 MiB is reserved by PyTorch but unallocated"
        QVERIFY2(double(frag->savesBytes) <= 120.15 * (1 << 20) + request, qPrintable(QString::number(frag->savesBytes)));
        QVERIFY(double(frag->peakAfterBytes) >= truth["peak_allocated"].toDouble());
        QVERIFY(std::none_of(adv.fixes.begin(), adv.fixes.end(), [](const Fix &f) { return f.technique == "empty_cache"; }));
        // The least change that fits comes first: a setting, here an allocator one.
        QVERIFY(!adv.fixes.empty());
        QCOMPARE(adv.fixes.front().effort, Effort::Config);
        QVERIFY(adv.fixes.front().fits.value_or(false));
        // Every fix says whether it fits, except sharding over a GPU count the file does not give.
        for (const Fix &f : adv.fixes)
            QVERIFY2(f.fits.has_value() != (f.technique.find(" GPUs") != std::string::npos), f.technique.c_str());
    }

    // A measured pair: the varying-length run's peak step (8 × 1024 tokens) with half the
    // micro-batch is GPT-2 small at 8 × 512 tokens, measured on its own in gpt2_fp32_adamw,
    // plus the gradients gradient accumulation keeps alive.
    void halfBatchAgainstMeasuredPair()
    {
        const Advised a = adviseFile(corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst");
        QCOMPARE(qint64(a.advice.setup.tokens.value.value_or(0)), qint64(8 * 1024));
        const auto half = std::find_if(a.advice.fixes.begin(), a.advice.fixes.end(), [](const Fix &f) { return f.technique == "half-batch"; });
        QVERIFY(half != a.advice.fixes.end());
        const QJsonObject pair = readJsonObject(corpusDir() + "/snapshots/gpt2_fp32_adamw/truth.json");
        const double gradients = pair["params"].toDouble() * 4;
        const double measured = pair["peak_allocated"].toDouble() + gradients;
        const double error = std::abs(double(half->peakAfterBytes) - measured) / measured;
        qInfo("half-batch: predicted %.3f GB, measured pair %.3f GB, error %.1f %%", half->peakAfterBytes / 1e9, measured / 1e9, error * 100);
        QVERIFY(error <= 0.05);
    }

    void jsonKeys()
    {
        const Advised a = adviseFile(corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle");
        const nlohmann::json j = adviceJson("x", 0, a.advice);
        for (const char *key : {"params", "trainable_params", "param_dtype", "optimizer", "tokens", "preset", "checkpointing"}) {
            QVERIFY2(j["inferred"].contains(key), key);
            QVERIFY2(j["inferred"][key].contains("how"), key);
        }
        QCOMPARE(j["inferred"]["preset"]["value"].get<std::string>(), std::string("gpt2-medium"));
        for (const char *key : {"technique", "saves_bytes", "peak_after_bytes", "fits", "why"})
            QVERIFY2(j["fixes"][0].contains(key), key);
        QCOMPARE(j["at"].get<std::string>(), std::string("oom"));
    }

    void badAt()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, adviseFile(corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", Moment::oom()));
    }
};

QTEST_GUILESS_MAIN(TestAdvice)
#include "tst_advice.moc"
