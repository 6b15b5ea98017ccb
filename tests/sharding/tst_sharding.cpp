// Sharded runs read as what they are: memory by FSDP unit, the whole model's setup from one
// rank's shards, and the fixes that apply, on FSDP2 snapshots generated as torchtitan writes them
// (tests/tools/make_fsdp2_run.py: torch's own marks only, C++ and Python stacks, alternate layers
// checkpointed, an OOM in the loss). Bytes by unit are checked against an independent reading of
// the marks (tests/tools/unit_oracle.py), the setup against the generator's config.
#include "CorpusFiles.h"
#include "advice/FixRanking.h"
#include "advice/ShardedFixes.h"
#include "decode/SnapshotLoader.h"
#include "estimator/MemoryEstimator.h"
#include "figures/AllocationCategories.h"
#include "figures/SnapshotSummary.h"
#include "export/FleetTables.h"
#include "index/DeviceIndex.h"
#include "parquet/ParquetFileReader.h"
#include "parquet/ParquetFileWriter.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

using namespace memlens;

namespace {

struct Generated {
    QString file;
    QJsonObject truth;
};

Generated generate(const QTemporaryDir &dir, const QString &name, const QStringList &args)
{
    QString error;
    const QString file = dir.filePath(name + ".pickle");
    const QByteArray out = runPythonTool("make_fsdp2_run.py", QStringList{file} + args, &error);
    if (out.isEmpty())
        qWarning("%s", qPrintable(error));
    return {file, QJsonDocument::fromJson(out).object()};
}

QJsonObject oracle(const QString &file, const QStringList &args = {})
{
    QString error;
    const QByteArray out = runPythonTool("unit_oracle.py", QStringList{file} + args, &error);
    if (out.isEmpty())
        qWarning("%s", qPrintable(error));
    return QJsonDocument::fromJson(out).object();
}

struct Loaded {
    std::unique_ptr<Snapshot> snapshot;
    std::unique_ptr<DeviceIndex> index;
    std::unique_ptr<AllocationCategories> categories;
};

Loaded load(const QString &file)
{
    Loaded l;
    l.snapshot = loadSnapshot(file.toStdString());
    l.index = std::make_unique<DeviceIndex>(*l.snapshot, 0);
    l.categories = std::make_unique<AllocationCategories>(*l.snapshot, *l.index);
    return l;
}

// The GPT-2 corpus run with Megatron's per-layer marks for 4 layers (make_layer_marks.py); empty
// when it could not be made.
QString megatronMarked(const QTemporaryDir &dir)
{
    const QString out = dir.filePath("megatron.pickle");
    QString error;
    runPythonTool("make_layer_marks.py", {corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle", out, "--framework", "megatron", "--layers", "4"}, &error);
    if (!QFile::exists(out))
        qWarning("%s", qPrintable(error));
    return QFile::exists(out) ? out : QString();
}

Advice adviseOn(const Loaded &l, std::optional<uint64_t> capacity)
{
    AdviceOptions options;
    options.capacity = capacity;
    options.deviceTotal = capacity;
    options.capacitySource = "--gpu a100-40";
    return advise(*l.snapshot, *l.index, *l.categories, options);
}

const Fix *fixNamed(const Advice &a, const std::string &technique)
{
    const auto it = std::find_if(a.fixes.begin(), a.fixes.end(), [&](const Fix &f) { return f.technique == technique; });
    return it == a.fixes.end() ? nullptr : &*it;
}

constexpr uint64_t kA100 = 40ull << 30;

} // namespace

class TestSharding : public QObject {
    Q_OBJECT

private slots:
    void unitsAtPeakMatchAnIndependentReading_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("alternate layers checkpointed, OOM in the loss") << QStringList{};
        QTest::newRow("none checkpointed") << QStringList{"--checkpoint-every", "0"};
        QTest::newRow("all checkpointed, 8 ranks") << QStringList{"--checkpoint-every", "1", "--world", "8"};
        QTest::newRow("no OOM, 12 layers") << QStringList{"--no-oom", "--layers", "12"};
    }
    // Live bytes at the peak by unit equal the oracle's for every unit, and what no unit made.
    void unitsAtPeakMatchAnIndependentReading()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", args);
        QVERIFY(!g.truth.isEmpty());
        const Loaded l = load(g.file);
        const DeviceSummary s = summarizeDevice(*l.snapshot, *l.index, 5);
        QVERIFY(s.units);
        QCOMPARE(s.units->source(), UnitSource::FsdpMarks);
        const QJsonObject expected = oracle(g.file);
        QCOMPARE(qint64(s.peakIndex->index()), expected["event"].toInteger());
        const QJsonObject units = expected["units"].toObject();
        uint64_t total = 0;
        for (const UnitBytes &u : s.unitsAtPeak) {
            total += u.bytes;
            if (u.unit.empty())
                QCOMPARE(qint64(u.bytes), expected["outside"].toInteger());
            else
                QVERIFY2(qint64(u.bytes) == units[QString::fromStdString(u.unit)].toInteger(), u.unit.c_str());
        }
        QCOMPARE(size_t(units.size()), s.unitsAtPeak.size() - 1);
        QCOMPARE(total, s.peakActiveBytes);
    }

    // The whole model from one rank's gathers, as the generator built it: parameters, shape,
    // tokens per rank, world size, checkpointed layers; at two other sizes, so no figure is a
    // constant.
    void setupFromShards_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("llama-3.1-8b over 4 ranks") << QStringList{};
        QTest::newRow("a 20-layer model over 8 ranks, 4096 tokens") << QStringList{"--layers", "20", "--hidden", "2048", "--kv", "512", "--intermediate", "5632",
                                                                                    "--vocab", "32000", "--world", "8", "--tokens", "4096", "--checkpoint-every", "4"};
    }
    void setupFromShards()
    {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", args);
        const Loaded l = load(g.file);
        const Advice a = adviseOn(l, std::nullopt);
        QVERIFY(a.sharded);
        const ShardedModel &m = *a.sharded;
        QCOMPARE(qint64(*a.setup.params.value), g.truth["params"].toInteger());
        QCOMPARE(qint64(m.hidden), g.truth["hidden"].toInteger());
        QCOMPARE(qint64(m.kvWidth), g.truth["kv"].toInteger());
        QCOMPARE(qint64(m.mlpWidth), g.truth["intermediate"].toInteger());
        QCOMPARE(qint64(m.vocab), g.truth["vocab"].toInteger());
        QCOMPARE(m.layers, g.truth["layers"].toInt());
        QCOMPARE(qint64(*a.setup.tokens.value), g.truth["tokens"].toInteger());
        QCOMPARE(*a.setup.gpus.value, g.truth["world"].toInt());
        QCOMPARE(m.gatheredBytes, 2);
        QCOMPARE(*m.shardBytes, 4);
        QCOMPARE(qint64(m.shardTotal), g.truth["shard_bytes"].toInteger());
        QStringList checkpointed;
        for (const GatheredUnit &u : m.units) {
            if (u.checkpointed)
                checkpointed << QString::fromStdString(u.name);
        }
        QStringList expected;
        for (const QJsonValue &v : g.truth["checkpointed"].toArray())
            expected << v.toString();
        QCOMPARE(checkpointed, expected);
        QCOMPARE(a.setup.parallelism.value->shardingStage, 3);
        if (g.truth["params"].toInteger() == 8'030'261'248)
            QCOMPARE(*a.setup.preset.value, std::string("llama-3-8b"));
    }

    // What no unit made is two things: what the trace made outside every unit (the sharded
    // parameters FSDP made at start-up, the loss's logits) and what was made before the trace
    // began (a block the framework made earlier, which no mark can place). They were one row,
    // "(outside every unit)", adding 3.91 GiB of a loss to 3.74 GiB of shards on a public rank.
    void madeBeforeTheTraceApartFromOutsideEveryUnit()
    {
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", {});
        const QString variant = dir.filePath("before.pickle");
        QString error;
        const QJsonObject made =
            QJsonDocument::fromJson(runPythonTool("make_user_variants.py", {g.file, variant, "--marks", "torch", "--before-trace", "fsdp_shard"}, &error)).object();
        const uint64_t before = uint64_t(made["before_trace_bytes"].toObject()["fsdp_shard"].toInteger());
        QVERIFY2(before > 0, qPrintable(error));
        auto rowsOf = [](const QString &file) {
            const Loaded l = load(file);
            return summarizeDevice(*l.snapshot, *l.index, 5).unitsAtPeak;
        };
        auto find = [](const std::vector<UnitBytes> &rows, bool beforeTrace) {
            const auto it = std::find_if(rows.begin(), rows.end(), [&](const UnitBytes &u) { return u.unit.empty() && u.beforeTrace == beforeTrace; });
            return it == rows.end() ? std::optional<uint64_t>() : std::optional<uint64_t>(it->bytes);
        };
        const std::vector<UnitBytes> plain = rowsOf(g.file), with = rowsOf(variant);
        QVERIFY(!find(plain, true));
        QCOMPARE(find(with, true), std::optional<uint64_t>(before));
        QVERIFY(find(plain, false).has_value());
        QCOMPARE(find(with, false), find(plain, false));
    }

    // The estimator on the generated torchtitan setup (Llama-3.1-8B over 4 ranks, bf16 gathered
    // from fp32 shards, every other layer checkpointed, fused RMSNorm): its shards and gathered
    // head are the parameter bytes the rank holds; it is the first iteration (the rank holds no
    // optimizer state or gradients), and the first forward up to the loss is what the rank held
    // beside its logits. With the loss the estimate needs more than the rank asked for when it
    // failed (the fp32 log-softmax and its gradient come after the copy it died on).
    void estimatorPredictsTheFirstIteration()
    {
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", {});
        const Loaded l = load(g.file);
        const Advice a = adviseOn(l, std::nullopt);
        const uint64_t request = uint64_t(g.truth["oom_request"].toInteger());
        const uint64_t tokens = uint64_t(g.truth["tokens"].toInteger()), vocab = uint64_t(g.truth["vocab"].toInteger());
        QVERIFY(a.oom);
        QCOMPARE(a.categories[size_t(Category::OptimizerState)], uint64_t(0));
        QCOMPARE(a.categories[size_t(Category::Gradient)], uint64_t(0));
        EstimateInput in;
        in.model = *findModel("llama-3-8b");
        in.precision = Precision::Bf16;
        in.batch = 1;
        in.seq = int(tokens);
        in.zeroStage = 3;
        in.gpus = g.truth["world"].toInt();
        QVERIFY(parseCheckpointing("every:" + std::to_string(g.truth["layers"].toInt() / g.truth["checkpointed"].toArray().size()), in));
        in.fusedNorm = true;
        const EstimateResult r = estimate(in);
        QCOMPARE(r.params, uint64_t(g.truth["params"].toInteger()));
        const double parameters = double(a.categories[size_t(Category::Parameter)]);
        QVERIFY2(std::abs(double(r.parametersBytes + r.gatheredBytes) - parameters) <= parameters * 1e-4,
                 qPrintable(QString("%1 + %2 vs %3").arg(r.parametersBytes).arg(r.gatheredBytes).arg(parameters)));
        const uint64_t first = r.phases.at(EstimatePhase::FirstForwardLoss);
        const double beforeLoss = double(first - r.logitsBytes - r.workspaceBytes), held = double(a.peakBytes - request - tokens * vocab * 2);
        qInfo("first forward: %.2f GiB before the loss, the rank %.2f GiB; with the loss %.2f GiB, the rank needed %.2f GiB", beforeLoss / (1 << 30),
              held / (1 << 30), double(first) / (1 << 30), double(a.peakBytes) / (1 << 30));
        QVERIFY(std::abs(beforeLoss - held) <= held * 0.01);
        QVERIFY(first >= a.peakBytes);
        QVERIFY(first < r.phases.at(EstimatePhase::ForwardLoss));
    }

    // The OOM is the loss's fp32 logits: the first fix named is that allocation's own, saving at
    // the OOM the request and the 16-bit logits; checkpointing the other layers saves there what
    // they keep beyond one input each, by the oracle's bytes. Each fix's peak is the reserved bytes
    // the whole step needs at its highest with it, its saving what that takes off what the run
    // needed (no more than it saves at the OOM), and fits is that peak against the capacity; a run
    // that checkpoints every layer is not told to checkpoint more.
    void fixesForShardedRun()
    {
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", {});
        const Loaded l = load(g.file);
        const Advice a = adviseOn(l, kA100);
        const uint64_t request = uint64_t(g.truth["oom_request"].toInteger());
        const uint64_t tokens = uint64_t(g.truth["tokens"].toInteger()), vocab = uint64_t(g.truth["vocab"].toInteger());
        const uint64_t input = tokens * uint64_t(g.truth["hidden"].toInteger()) * 2;

        const ShardedRecord record = shardedRecord(a, *a.sharded, request);
        const Fix *loss = fixNamed(a, "chunked-cross-entropy");
        QVERIFY(loss);
        const uint64_t logits = tokens * vocab * 2;
        QCOMPARE(record.logits, logits);
        QVERIFY(uint64_t(loss->savesBytes) <= request + logits - logits / 8);
        QVERIFY(QString::fromStdString(loss->why).contains("the allocation that failed is the loss's fp32 copy of the logits"));

        const QJsonObject units = oracle(g.file)["units"].toObject();
        QStringList checkpointed;
        for (const QJsonValue &v : g.truth["checkpointed"].toArray())
            checkpointed << v.toString();
        uint64_t beyondInput = 0;
        for (int i = 0; i < g.truth["layers"].toInt(); ++i) {
            const QString layer = QString("layers.%1").arg(i);
            if (!checkpointed.contains(layer))
                beyondInput += uint64_t(units[layer].toInteger()) - input;
        }
        const Fix *rest = fixNamed(a, "checkpoint-remaining-layers");
        QVERIFY(rest);
        QCOMPARE(record.layerExtra, beyondInput);
        QVERIFY(uint64_t(rest->savesBytes) <= beyondInput);
        QVERIFY(QString::fromStdString(rest->why).contains("clears the recorded OOM"));
        for (const Fix &f : a.fixes) {
            QVERIFY(f.fits.has_value());
            QCOMPARE(*f.fits, f.peakAfterBytes <= *a.capacity);
            QCOMPARE(uint64_t(f.savesBytes) + f.peakAfterBytes, a.neededBytes);
            QVERIFY2(QString::fromStdString(f.why).contains("the whole step as FSDP runs it"), f.technique.c_str());
        }
        QVERIFY(*rest->fits);

        // The planner: the fewest more layers to checkpoint for the whole step to fit, named in the
        // order they run; one fewer does not fit (the step's peak is the same model the fixes are
        // judged on), and checkpointing them saves what the oracle says those units keep beyond
        // their input.
        const Fix *plan = fixNamed(a, "checkpoint-fewest-layers");
        QVERIFY(plan && *plan->fits && !plan->layers.empty());
        const size_t n = plan->layers.size();
        QVERIFY(n < size_t(g.truth["layers"].toInt() - checkpointed.size()));
        QVERIFY(shardedFixPeak(a, shardedStep(a, *a.sharded, request, {.checkpointLayers = n}), record.extraOfMost(n)) <= *a.capacity);
        QVERIFY(shardedFixPeak(a, shardedStep(a, *a.sharded, request, {.checkpointLayers = n - 1}), record.extraOfMost(n - 1)) > *a.capacity);
        uint64_t planned = 0;
        for (const std::string &layer : plan->layers) {
            QVERIFY2(!checkpointed.contains(QString::fromStdString(layer)), layer.c_str());
            planned += uint64_t(units[QString::fromStdString(layer)].toInteger()) - input;
        }
        QCOMPARE(record.extraOfMost(n), planned);
        QVERIFY(uint64_t(plan->savesBytes) <= planned);

        const Generated all = generate(dir, "all", {"--checkpoint-every", "1"});
        const Loaded la = load(all.file);
        QVERIFY(!fixNamed(adviseOn(la, kA100), "checkpoint-remaining-layers"));
    }

    // The fleet dataset's live_at_peak table names each block's unit: grouped by it, the bytes
    // are the summary's modules_at_peak (DuckDB reads the same column in tests/fleet).
    void datasetNamesTheUnit()
    {
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", {"--layers", "6"});
        const Loaded l = load(g.file);
        const DeviceSummary s = summarizeDevice(*l.snapshot, *l.index, 5);
        const std::string path = dir.filePath("live.parquet").toStdString();
        {
            parquet::ParquetFileWriter writer(path, fleetTableColumns(FleetTable::LiveAtPeak), parquet::ParquetOptions{});
            writeFleetTable(FleetTable::LiveAtPeak, {l.snapshot.get(), {{0, l.index.get(), l.categories.get(), &s}}}, "run.pickle", writer);
            writer.finish();
        }
        std::ifstream in(path, std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        const std::string file = bytes.str();
        const parquet::ParquetFileReader reader(file);
        const auto modules = reader.strings("module");
        const auto sizes = reader.integers("size");
        std::map<std::string, uint64_t> byUnit;
        for (size_t r = 0; r < modules.size(); ++r)
            byUnit[modules[r].value_or("")] += uint64_t(*sizes[r]);
        QCOMPARE(byUnit.size(), s.unitsAtPeak.size());
        for (const UnitBytes &u : s.unitsAtPeak)
            QCOMPARE(byUnit[u.unit], u.bytes);
    }

    // Runs without FSDP's marks have no units and no sharded setup: the corpus files.
    void singleGpuRunsHaveNoUnits()
    {
        for (const char *run : {"gpt2_fp32_adamw/snapshot.pickle", "tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz", "oom_gpt2_medium_6gib/oom_snapshot.pickle"}) {
            const Loaded l = load(corpusDir() + "/snapshots/" + run);
            QVERIFY2(!summarizeDevice(*l.snapshot, *l.index, 5).units, run);
            QVERIFY2(!adviseOn(l, std::nullopt).sharded, run);
        }
    }

    // Megatron's per-layer record_function names (`decoder.layers.3.mlp`) are units too: every
    // byte live at the peak is in one unit or outside all, and the units are the marks' names.
    void modulePathMarksAreUnits()
    {
        QTemporaryDir dir;
        const QString out = megatronMarked(dir);
        QVERIFY(!out.isEmpty());
        const Loaded l = load(out);
        const DeviceSummary s = summarizeDevice(*l.snapshot, *l.index, 5);
        QVERIFY(s.units);
        QCOMPARE(s.units->source(), UnitSource::ModulePathMarks);
        QCOMPARE(s.units->names().size(), size_t(8));
        for (const std::string &name : s.units->names())
            QVERIFY2(name.starts_with("decoder.layers."), name.c_str());
        uint64_t total = 0;
        for (const UnitBytes &u : s.unitsAtPeak)
            total += u.bytes;
        QCOMPARE(total, s.peakActiveBytes);
    }

    // A model's layers from its stacks alone: the generated FSDP2 rank with every mark removed has
    // one layer per FSDP unit of its layer loop, each holding at the peak what the unit oracle
    // (tests/tools/unit_oracle.py, reading the marks of the file before they were removed) puts in
    // that unit; with the marks, the marks name the same layers.
    void layersFromTheStacksAreTheUnits()
    {
        QTemporaryDir dir;
        const Generated g = generate(dir, "run", {"--layers", "8"});
        const QString bare = dir.filePath("bare.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {g.file, bare, "--marks", "none"}, &error);
        QVERIFY2(QFile::exists(bare), qPrintable(error));
        const QJsonObject units = oracle(g.file)["units"].toObject();
        const Loaded l = load(bare);
        const DeviceSummary s = summarizeDevice(*l.snapshot, *l.index, 5);
        QVERIFY(!s.units && s.layers);
        QVERIFY(QString::fromStdString(l.snapshot->frameText(s.layers->loop)).startsWith("model.py:470:"));
        QCOMPARE(s.layers->forward.size(), size_t(8));
        QVERIFY(s.layers->backward.empty()); // the OOM in the loss ends the trace before backward
        for (const LayerPassFigures &f : s.layers->forward) {
            const double unit = units[QString("layers.%1").arg(f.layer)].toDouble();
            QVERIFY2(unit > 0 && std::abs(double(f.atPeakBytes) - unit) <= 0.01 * unit,
                     qPrintable(QString("layer %1: %2 at the peak, unit %3").arg(f.layer).arg(f.atPeakBytes).arg(unit)));
        }
        // With FSDP's marks they name the layers (`layers_from` fsdp_marks): the same layers,
        // windows and bytes as the stacks give once every mark is removed.
        const Loaded marked = load(g.file);
        const DeviceSummary m = summarizeDevice(*marked.snapshot, *marked.index, 5);
        const DeviceSummary &u = s;
        QVERIFY(m.layers);
        QCOMPARE(m.layers->source, LayerSource::FsdpMarks);
        QCOMPARE(u.layers->source, LayerSource::Stacks);
        QCOMPARE(layerLoopName(*marked.snapshot, *m.layers), std::string("layers.N"));
        QCOMPARE(m.layers->forward.size(), u.layers->forward.size());
        for (size_t i = 0; i < m.layers->forward.size(); ++i) {
            const LayerPassFigures &a = m.layers->forward[i], &b = u.layers->forward[i];
            for (auto [x, y] : {std::pair{a.atPeakBytes, b.atPeakBytes}, {a.peakBytes, b.peakBytes}, {a.unfreedBytes + a.retainedBytes, b.unfreedBytes + b.retainedBytes}, {a.largestBytes, b.largestBytes}})
                QVERIFY2(std::abs(double(x) - double(y)) <= 0.01 * double(std::max(x, y)), qPrintable(QString("layer %1: %2 vs %3").arg(i).arg(x).arg(y)));
        }
    }

    // Megatron's module-path marks (`decoder.layers.3.mlp`) name the layers too: the marks' count,
    // not the stacks' 12, where a framework says so; without the marks, the stacks' 12 again.
    void layersFromModulePathMarks()
    {
        QTemporaryDir dir;
        const QString out = megatronMarked(dir);
        QVERIFY(!out.isEmpty());
        const Loaded l = load(out);
        const DeviceSummary s = summarizeDevice(*l.snapshot, *l.index, 5);
        QVERIFY(s.layers);
        QCOMPARE(s.layers->source, LayerSource::ModuleMarks);
        QCOMPARE(s.layers->markedStack, std::string("decoder.layers"));
        QCOMPARE(s.layers->forward.size(), size_t(4));
        // Each window runs from the start of its layer's first mark in the pass to the end of the
        // last: the spans of that layer that follow each other, no other layer's between (the
        // same names mark backward, where the autograd engine's frames are).
        const EventTable &events = l.index->events();
        std::vector<const UnitSpan *> forward;
        for (const UnitSpan &span : s.units->spans()) {
            uint32_t e = 0;
            while (e < events.count() && events.timeUs[e] < span.startUs)
                ++e;
            if (e < events.count() && s.parts->at(TracePoint::after(EventId(e))) == StepPart::Forward && s.units->names()[span.unit].starts_with("decoder.layers."))
                forward.push_back(&span);
        }
        for (const LayerPassFigures &f : s.layers->forward) {
            const std::string prefix = "decoder.layers." + std::to_string(f.layer) + ".";
            const int64_t t = events.timeUs[f.first.index()];
            size_t k = 0;
            while (k < forward.size() && !(s.units->names()[forward[k]->unit].starts_with(prefix) && forward[k]->startUs <= t && t <= forward[k]->endUs))
                ++k;
            QVERIFY2(k < forward.size(), qPrintable(QString("layer %1 starts in none of its marks").arg(f.layer)));
            const int64_t from = forward[k]->startUs;
            int64_t to = forward[k]->endUs;
            while (++k < forward.size() && s.units->names()[forward[k]->unit].starts_with(prefix))
                to = std::max(to, forward[k]->endUs);
            QVERIFY(f.first.index() == 0 || events.timeUs[f.first.index() - 1] < from);
            QVERIFY(events.timeUs[f.end.index() - 1] <= to);
            QVERIFY(f.end.index() == events.count() || events.timeUs[f.end.index()] > to);
        }
        const QString bare = dir.filePath("bare.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {out, bare, "--marks", "none"}, &error);
        const Loaded b = load(bare);
        const DeviceSummary n = summarizeDevice(*b.snapshot, *b.index, 5);
        QVERIFY(n.layers && n.layers->source == LayerSource::Stacks);
        QCOMPARE(n.layers->forward.size(), size_t(12));
    }

    // Single-GPU runs name no layer, yet each decoder layer's frames repeat once per layer per
    // pass: the layers are the model's (GPT-2 12, GPT-2 medium 24, TinyLlama 22), with our marks
    // and without them; identical layers keep the same bytes for backward. ResNet's four stages
    // each loop over their blocks inside nn.Sequential: no single layer loop, none.
    void layersOfSingleGpuRuns_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::newRow("gpt2") << "gpt2_fp32_adamw/snapshot.pickle" << 12;
        QTest::newRow("gpt2 varlen") << "frag_varlen_gpt2/snapshot.pickle.zst" << 12;
        QTest::newRow("gpt2-medium oom") << "oom_gpt2_medium_6gib/oom_snapshot.pickle" << 24;
        QTest::newRow("tinyllama checkpointed") << "tinyllama_bf16_ckpt_cpp_stacks/snapshot.pickle.gz" << 22;
        QTest::newRow("resnet50") << "resnet50_bf16_sgd/snapshot.pickle" << 0;
    }
    void layersOfSingleGpuRuns()
    {
        QFETCH(QString, file);
        QFETCH(int, layers);
        QTemporaryDir dir;
        const QString bare = dir.filePath("bare.pickle");
        QString error;
        runPythonTool("make_user_variants.py", {corpusDir() + "/snapshots/" + file, bare, "--marks", "none"}, &error);
        QVERIFY2(QFile::exists(bare), qPrintable(error));
        for (const QString &path : {corpusDir() + "/snapshots/" + file, bare}) {
            const Loaded l = load(path);
            const DeviceSummary s = summarizeDevice(*l.snapshot, *l.index, 5);
            if (!layers) {
                QVERIFY(!s.layers);
                continue;
            }
            QVERIFY(s.layers);
            QCOMPARE(s.layers->forward.size(), size_t(layers));
            uint64_t least = UINT64_MAX, most = 0;
            for (const LayerPassFigures &f : s.layers->forward)
                least = std::min(least, f.retainedBytes), most = std::max(most, f.retainedBytes);
            QVERIFY2(least > 0 && double(most) <= 1.02 * double(least), qPrintable(QString("%1 … %2").arg(least).arg(most)));
            // What the layers keep for backward is the activations the layer loop built: the bytes
            // the trace's own entries add from the first layer's start to the last one's end (the
            // head's logits and the loss come after, outside every layer), within 3 %.
            const EventTable &t = l.snapshot->traces.at(0);
            int64_t built = 0, kept = 0;
            for (uint32_t i = s.layers->forward.front().first.index(); i < s.layers->forward.back().end.index(); ++i)
                built += t.action[i] == Action::Alloc ? int64_t(t.size[i]) : t.action[i] == Action::FreeRequested ? -int64_t(t.size[i]) : 0;
            for (const LayerPassFigures &f : s.layers->forward)
                kept += int64_t(f.retainedBytes + f.unfreedBytes);
            QVERIFY2(built > 0 && std::abs(double(kept - built)) <= 0.03 * double(built), qPrintable(QString("kept %1, built %2").arg(kept).arg(built)));
            // Each run's backward is in its trace: a backward per layer, ordered as backward runs
            // them (the last layer first), alike but for the last layer's (the head's and the
            // loss's backward run in it).
            const std::vector<LayerPassFigures> &backward = s.layers->backward;
            QCOMPARE(backward.size(), size_t(layers));
            least = UINT64_MAX, most = 0;
            for (size_t k = 0; k + 1 < backward.size(); ++k) {
                QCOMPARE(backward[k].layer, uint32_t(k));
                QVERIFY(backward[k].first == backward[k + 1].end);
                least = std::min(least, backward[k].transientBytes), most = std::max(most, backward[k].transientBytes);
            }
            QVERIFY2(least > 0 && double(most) <= 1.02 * double(least), qPrintable(QString("backward %1 … %2").arg(least).arg(most)));
        }
    }

    // The mark grammar: FSDP2's and FSDP1's hook names, the root's unnamed marks, module paths.
    void markNames()
    {
        QCOMPARE(fsdpHookMark("FSDP::pre_forward (layers.3)")->unit, std::string("layers.3"));
        QCOMPARE(std::string(fsdpHookMark("FSDP::post_backward_reduce (norm, output)")->hook), std::string("post_backward_reduce"));
        QCOMPARE(fsdpHookMark("FullyShardedDataParallel::pre_forward (model.layers.0)")->unit, std::string("model.layers.0"));
        QCOMPARE(fsdpHookMark("FSDP::pre_forward")->unit, std::string("(root)"));
        QVERIFY(!fsdpHookMark("forward"));
        QVERIFY(!fsdpHookMark("FSDP::pre_forward (broken"));
        QVERIFY(isModulePath("decoder.layers.3.self_attention"));
        QVERIFY(isModulePath("layers.0"));
        QVERIFY(!isModulePath("Optimizer.step#AdamW.step"));
        QVERIFY(!isModulePath("ProfilerStep#3"));
        QVERIFY(!isModulePath("forward"));
        QVERIFY(!isModulePath("model.encoder"));
    }
};

QTEST_GUILESS_MAIN(TestSharding)
#include "tst_sharding.moc"
