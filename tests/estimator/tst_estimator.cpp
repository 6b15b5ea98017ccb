// The estimator: exact parameter counts of the presets, the measured H100 runs in
// corpus/estimator (through the command line, as a user would pass them), and the solvers.
#include "CorpusFiles.h"
#include "estimator/EstimatorPresets.h"
#include "estimator/MemoryEstimator.h"

#include <QJsonArray>
#include <algorithm>
#include <tuple>

using namespace memlens;

namespace {

QJsonObject estimateCli(const QStringList &args)
{
    QProcess p;
    p.start(QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens", QStringList{"estimate", "--json"} + args);
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return {};
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

QList<QJsonObject> measuredRows()
{
    QList<QJsonObject> rows;
    QFile f(corpusDir() + "/estimator/measured_public.jsonl");
    if (!f.open(QIODevice::ReadOnly))
        return rows;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (!line.trimmed().isEmpty())
            rows << QJsonDocument::fromJson(line).object();
    }
    return rows;
}

// The row's setup as command-line flags.
QStringList flagsOf(const QJsonObject &row)
{
    QStringList flags{"--model", row["model"].toString(), "--precision", row["precision"].toString(), "--batch",
                      QString::number(row["batch"].toInt()), "--seq", QString::number(row["seq"].toInt())};
    if (row["optimizer"].toString() == "none")
        flags << "--mode" << "inference" << "--new-tokens" << "256";
    else
        flags << "--optimizer" << row["optimizer"].toString();
    if (row["checkpointing"].toBool())
        flags << "--checkpointing" << "full";
    if (row["lora_r"].toInt() > 0)
        flags << "--lora-r" << QString::number(row["lora_r"].toInt());
    return flags;
}

// The corpus snapshots' runs with a fixed shape, from their truth.json, as the same flags.
QList<QPair<QStringList, double>> snapshotRuns()
{
    QList<QPair<QStringList, double>> runs;
    const QStringList folders{"gpt2_fp32_adamw", "resnet50_bf16_sgd", "tinyllama_bf16_ckpt_cpp_stacks"};
    for (const QString &folder : folders) {
        QFile f(corpusDir() + "/snapshots/" + folder + "/truth.json");
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        const int params = t["params"].toInt();
        const QString model = params == 124439808 ? "gpt2-small" : params == 25557032 ? "resnet50" : "tinyllama-1.1b";
        QStringList flags{"--model", model, "--precision", t["dtype"].toString() == "bf16-autocast" ? "amp-bf16" : t["dtype"].toString(),
                          "--optimizer", t["optimizer"].toString().toLower(), "--batch", QString::number(t["batch"].toInt())};
        flags << (t.contains("image") ? "--image-size" : "--seq") << QString::number(t.contains("image") ? t["image"].toInt() : t["seq"].toInt());
        if (t["checkpointing"].toBool())
            flags << "--checkpointing" << "full";
        runs.append({flags, t["peak_allocated"].toDouble()});
    }
    return runs;
}

// TinyLlama in bf16 at 4 × 2,048 tokens, AdamW: the setup the technique tests share.
EstimateInput tinyllamaBf16()
{
    EstimateInput in;
    in.model = *findModel("tinyllama-1.1b");
    in.precision = Precision::Bf16;
    in.batch = 4;
    in.seq = 2048;
    return in;
}

} // namespace

class TestEstimator : public QObject {
    Q_OBJECT

private slots:
    void parameterCounts_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<qulonglong>("params");
        // ESTIMATOR.md's figures, from the models' own implementations.
        QTest::newRow("gpt2-small") << "gpt2-small" << 124439808ull;
        QTest::newRow("gpt2-medium") << "gpt2-medium" << 354823168ull;
        QTest::newRow("gpt2-large") << "gpt2-large" << 774030080ull;
        QTest::newRow("tinyllama") << "tinyllama-1.1b" << 1100048384ull;
        QTest::newRow("llama-3-8b") << "llama-3-8b" << 8030261248ull;
        QTest::newRow("bert-base") << "bert-base" << 109514298ull;
        QTest::newRow("vit-b-16") << "vit-b-16" << 86567656ull;
        QTest::newRow("resnet50") << "resnet50" << 25557032ull;
    }

    void parameterCounts()
    {
        QFETCH(QString, model);
        QFETCH(qulonglong, params);
        const auto preset = findModel(model.toStdString());
        QVERIFY(preset);
        QCOMPARE(static_cast<qulonglong>(parameterCount(*preset)), params);
    }

    void everyPresetIsUsable()
    {
        for (const ModelShape &m : modelPresets()) {
            EstimateInput in;
            in.model = m;
            in.batch = 2;
            in.seq = m.isImage() ? 224 : 256;
            const EstimateResult r = estimate(in);
            QVERIFY2(r.peakAllocatedBytes > r.parametersBytes, m.name.c_str());
        }
    }

    // Every public measurement and every corpus snapshot of a fixed shape, passed as
    // command-line flags: median error ≤ 5 %, worst ≤ 12 %.
    void measuredRuns()
    {
        const QList<QJsonObject> rows = measuredRows();
        QVERIFY(rows.size() >= 5);
        const auto runs = snapshotRuns();
        QCOMPARE(runs.size(), 3);
        // (label, flags, measured peak, the public row whose parameter counts must match too)
        std::vector<std::tuple<QString, QStringList, double, QJsonObject>> all;
        for (const auto &[flags, measured] : runs)
            all.emplace_back(flags.join(' '), flags, measured, QJsonObject());
        for (const QJsonObject &row : rows)
            all.emplace_back(row["config"].toString(), flagsOf(row), row["peak_allocated"].toDouble(), row);
        std::vector<double> errors;
        for (const auto &[label, flags, measured, row] : all) {
            const QJsonObject r = estimateCli(flags);
            QVERIFY2(!r.isEmpty(), qPrintable(flags.join(' ')));
            if (!row.isEmpty()) {
                QCOMPARE(r["params"].toInteger(), row["params"].toInteger());
                QCOMPARE(r["trainable_params"].toInteger(), row["trainable_params"].toInteger());
            }
            const double error = std::abs(r["peak_allocated_bytes"].toDouble() - measured) / measured;
            qInfo("%-40s measured %.3f GB predicted %.3f GB error %.1f %%", qPrintable(label), measured / 1e9,
                  r["peak_allocated_bytes"].toDouble() / 1e9, error * 100);
            errors.push_back(error);
        }
        std::sort(errors.begin(), errors.end());
        QVERIFY2(errors[errors.size() / 2] <= 0.05, "median error above 5 %");
        QVERIFY2(errors.back() <= 0.12, "worst error above 12 %");
    }

    // fp32 with fewer KV heads than heads: neither flash (16-bit only) nor the efficient kernel
    // (no grouped-query support) runs, so SDPA's math path keeps each layer's softmax output,
    // batch × heads × sequence² fp32 values, which flash does not.
    void fp32GroupedQueryKeepsScores()
    {
        EstimateInput in;
        in.model = *findModel("tinyllama-1.1b");
        in.precision = Precision::Fp32;
        in.optimizer = Optimizer::Sgd;
        in.batch = 2;
        in.seq = 1024;
        EstimateInput flash = in;
        flash.attention = Attention::Flash;
        const double scores = double(in.model.layers) * in.batch * in.model.heads * double(in.seq) * in.seq * 4;
        const double extra = double(estimate(in).activationsBytes) - double(estimate(flash).activationsBytes);
        QVERIFY2(extra >= scores, qPrintable(QString::number(extra)));
        QVERIFY2(extra <= scores * 1.25, qPrintable(QString::number(extra))); // plus k and v repeated to every head
        EstimateInput bf16 = in;
        bf16.precision = Precision::Bf16;
        EstimateInput bf16Flash = bf16;
        bf16Flash.attention = Attention::Flash;
        QCOMPARE(estimate(bf16).activationsBytes, estimate(bf16Flash).activationsBytes);
    }

    // The trainable parameters of LoRA r 16 on Llama-3-8B as PEFT's print_trainable_parameters()
    // states them for its target sets: q_proj and v_proj (its default for Llama) 6,815,744; q, k,
    // v and o 13,631,488; all-linear 41,943,040.
    void loraTargetsCountAsPeft()
    {
        EstimateInput in;
        in.model = *findModel("llama-3-8b");
        in.precision = Precision::Bf16;
        in.loraRank = 16;
        for (const auto &[targets, peft] : {std::pair{LoraTargets::QueryValue, 6'815'744ull}, {LoraTargets::Attention, 13'631'488ull},
                                            {LoraTargets::AllLinear, 41'943'040ull}}) {
            in.loraTargets = targets;
            QCOMPARE(estimate(in).trainableParams, uint64_t(peft));
        }
    }

    // PEFT keeps adapters in fp32 on a bf16 model, so each adapter parameter costs 4 bytes of
    // weight, 4 of gradient and 8 of AdamW state; and lora_dropout adds one byte of mask per
    // element of every adapted module's input.
    void loraFromPeftSources()
    {
        const EstimateInput base = tinyllamaBf16();
        EstimateInput lora = base;
        lora.loraRank = 16;
        const EstimateResult r = estimate(lora);
        QCOMPARE(r.parametersBytes, estimate(base).parametersBytes + r.trainableParams * 4);
        QCOMPARE(r.gradientsBytes, r.trainableParams * 4);
        QCOMPARE(r.optimizerBytes, r.trainableParams * 8);
        EstimateInput dropout = lora;
        dropout.loraDropout = 0.05;
        const ModelShape &m = base.model;
        const double masks = double(m.layers) * base.batch * base.seq * (3.0 * m.hidden + double(m.heads) * m.dHead());
        QCOMPARE(double(estimate(dropout).activationsBytes) - double(r.activationsBytes), masks);
    }

    void jsonKeys()
    {
        const QJsonObject r = estimateCli({"--model", "llama-3-8b", "--precision", "bf16", "--batch", "1", "--seq", "2048",
                                           "--gpu", "h100-80", "--fit", "batch"});
        for (const QString key : {"params", "trainable_params", "parameters_bytes", "gradients_bytes", "optimizer_bytes",
                                   "master_weights_bytes", "activations_bytes", "logits_bytes", "transient_bytes",
                                   "kv_cache_bytes", "workspace_bytes", "peak_allocated_bytes", "reserved_bytes", "context_bytes", "fits",
                                   "savings", "fit"})
            QVERIFY2(r.contains(key), qPrintable(key));
    }

    void fitSolver()
    {
        EstimateInput in;
        in.model = *findModel("gpt2-medium");
        in.precision = Precision::AmpBf16;
        in.seq = 1024;
        in.gpuBytes = 85'017'493'504ull;
        const int b = largestBatch(in);
        QVERIFY(b > 1);
        in.batch = b;
        QVERIFY(estimate(in).fits);
        in.batch = b + 1;
        QVERIFY(!estimate(in).fits);
        // More memory per sample never fits more samples.
        in.batch = 1;
        in.checkpointing = Checkpointing::Full;
        QVERIFY(largestBatch(in) > b);
    }

    void kvCache()
    {
        // 2 · layers · batch · tokens · kv heads · head dim · bytes.
        EstimateInput in;
        in.model = *findModel("llama-3-8b");
        in.inference = true;
        in.precision = Precision::Bf16;
        in.batch = 4;
        in.seq = 1000;
        in.newTokens = 24;
        QCOMPARE(estimate(in).kvCacheBytes, uint64_t(2) * 32 * 4 * 1024 * 8 * 128 * 2);
    }

    // Under FSDP / ZeRO-3 over N GPUs each rank steps its own shard: the optimizer step's
    // weights, gradients, AdamW state and foreach temporaries are the one-GPU step's ÷ N (the
    // temporaries stayed whole: 29.9 GiB for Llama-3-8B over 4 ranks, as if unsharded).
    void shardedOptimizerStepDivides()
    {
        EstimateInput one;
        one.model = *findModel("llama-3-8b");
        one.precision = Precision::AmpBf16;
        one.batch = 1;
        one.seq = 8192;
        EstimateInput four = one;
        four.zeroStage = 3;
        four.gpus = 4;
        const EstimateResult a = estimate(one), b = estimate(four);
        const uint64_t workspace = a.workspaceBytes;
        QCOMPARE(b.transientBytes, a.transientBytes / 4);
        const uint64_t stepOne = a.phases.at(EstimatePhase::OptimizerStep) - workspace, stepFour = b.phases.at(EstimatePhase::OptimizerStep) - workspace;
        QVERIFY2(stepFour * 4 >= stepOne - 8 && stepFour * 4 <= stepOne + 8, qPrintable(QString("%1 x 4 vs %2").arg(stepFour).arg(stepOne)));
    }

    // torchtitan's layer checkpointing: every N-th layer (N, 2N, … from 1) keeps only its input.
    // Over an even layer count every:2 keeps half the layers whole and half as inputs: its
    // activations are halfway between none and full, and it recomputes as full does.
    void everyNthLayerCheckpointed()
    {
        EstimateInput none;
        none.model = *findModel("llama-3-8b");
        none.precision = Precision::Bf16;
        none.seq = 4096;
        EstimateInput full = none, every = none;
        QVERIFY(parseCheckpointing("full", full));
        QVERIFY(parseCheckpointing("every:2", every));
        QCOMPARE(checkpointingName(every), std::string("every:2"));
        const EstimateResult a = estimate(none), b = estimate(every), c = estimate(full);
        QCOMPARE(double(b.activationsBytes), std::round((double(a.activationsBytes) + double(c.activationsBytes)) / 2));
        QVERIFY(b.phases.count(EstimatePhase::Recompute) && !a.phases.count(EstimatePhase::Recompute));
        EstimateInput odd = none;
        QVERIFY(parseCheckpointing("every:3", odd));
        const uint64_t layerInput = uint64_t(4096) * 4096 * 2;
        const uint64_t layer = (a.activationsBytes - c.activationsBytes) / 32 + layerInput;
        QVERIFY(std::llabs(int64_t(estimate(odd).activationsBytes) - int64_t(a.activationsBytes - 10 * (layer - layerInput))) <= 16);
        for (const char *bad : {"every:0", "every:", "every:x", "every:-1", "sometimes"}) {
            EstimateInput in = none;
            QVERIFY2(!parseCheckpointing(bad, in), bad);
        }
        // The first iteration holds no optimizer state: its forward and loss are the steady
        // state's less AdamW's two moments.
        QCOMPARE(a.phases.at(EstimatePhase::FirstForwardLoss), a.phases.at(EstimatePhase::ForwardLoss) - a.optimizerBytes);
    }

    void techniquesSave()
    {
        const EstimateInput in = tinyllamaBf16();
        const EstimateResult r = estimate(in);
        QVERIFY(r.savings.at("checkpointing") > 0);
        QVERIFY(r.savings.at("adamw8bit") > 0);
        QVERIFY(r.savings.at("lora") > 0);
        QVERIFY(r.savings.at("half-batch") > 0);
        EstimateInput larger = in;
        larger.batch = 8;
        QVERIFY(estimate(larger).peakAllocatedBytes > r.peakAllocatedBytes);
    }
};

QTEST_GUILESS_MAIN(TestEstimator)
#include "tst_estimator.moc"
