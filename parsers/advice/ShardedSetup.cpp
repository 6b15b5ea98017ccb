#include "advice/ShardedSetup.h"

#include "advice/WeightWidth.h"
#include "estimator/EstimatorPresets.h"
#include "index/StackMatch.h"
#include "model/ByteFormat.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace memlens {

namespace {

bool hasPart(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

// FSDP's copy-out mark of one unit's gather: the unsharded storages are made inside it.
struct GatherSpan {
    int64_t startUs, endUs;
    uint32_t unit;
};

std::vector<GatherSpan> gatherSpans(const std::vector<PhaseRange> &phases, const ModuleUnits &units)
{
    std::vector<GatherSpan> spans;
    for (const PhaseRange &range : phases) {
        const std::optional<FsdpHookMark> mark = fsdpHookMark(range.name);
        if (!mark || !range.startUs || mark->hook != "all_gather_copy_out")
            continue;
        const auto name = std::find(units.names().begin(), units.names().end(), mark->unit);
        if (name == units.names().end())
            continue;
        spans.push_back({*range.startUs, range.endUs.value_or(INT64_MAX), uint32_t(name - units.names().begin())});
    }
    std::stable_sort(spans.begin(), spans.end(), [](const GatherSpan &a, const GatherSpan &b) { return a.startUs < b.startUs; });
    return spans;
}

// Each unit's first gather: the storages copied out of the all-gather buffer, in one sweep over
// the allocations (the innermost copy-out mark open when each was made).
void readGathers(const DeviceIndex &index, const std::vector<GatherSpan> &spans, std::vector<GatheredUnit> &out)
{
    std::vector<int> firstCopyOut(out.size(), -1);
    for (size_t s = 0; s < spans.size(); ++s) {
        if (firstCopyOut[spans[s].unit] < 0)
            firstCopyOut[spans[s].unit] = int(s);
    }
    forEachAllocInSpans(index.events(), spans, [&](uint32_t event, uint32_t s) {
        if (int(s) != firstCopyOut[spans[s].unit])
            return;
        out[spans[s].unit].weights.push_back(index.events().size[event]);
        out[spans[s].unit].storages.push_back(index.allocationOfEvent(EventId(event)));
    });
}

uint64_t totalBytes(const std::vector<uint64_t> &v)
{
    uint64_t s = 0;
    for (uint64_t x : v)
        s += x;
    return s;
}

template <typename T>
T mostFrequent(const std::map<T, int> &counts)
{
    return std::max_element(counts.begin(), counts.end(), [](const auto &a, const auto &b) { return a.second < b.second; })->first;
}

// The world: the whole model's values ÷ the rank's shards' values (dim 0 is padded to a multiple
// of the world, so the quotient falls a little short of it). Shards are fp32 when that gives a
// whole number: FSDP's MixedPrecisionPolicy keeps them so and casts the gathered copies; else
// 16-bit (a model cast before sharding).
void readWorld(ShardedModel &m)
{
    if (m.shardTotal == 0) {
        m.world = {std::nullopt, "no shards made by fully_shard alive at the moment", Confidence::Low};
        return;
    }
    for (int bytes : {4, 2}) {
        const double quotient = double(m.params) * bytes / double(m.shardTotal);
        const double world = std::round(quotient);
        if (world >= 1 && std::abs(quotient - world) < 0.02 * world) {
            m.shardBytes = bytes;
            m.world = {int(world), groupDigits(m.params) + " parameters over " + formatBytes(m.shardTotal) + " of " + (bytes == 4 ? "fp32" : "16-bit") +
                                       " shards on this rank",
                       bytes == 4 ? Confidence::Medium : Confidence::Low};
            return;
        }
    }
    m.world = {std::nullopt, "the shards are no whole fraction of the model", Confidence::Low};
}

// The repeated blocks: the units whose weights are the most common list of sizes.
void markLayers(ShardedModel &m)
{
    std::map<std::vector<uint64_t>, int> lists;
    for (GatheredUnit &u : m.units) {
        std::sort(u.weights.begin(), u.weights.end());
        if (!u.weights.empty())
            ++lists[u.weights];
    }
    if (lists.empty())
        return;
    const std::vector<uint64_t> block = mostFrequent(lists);
    if (lists[block] < 2)
        return;
    for (GatheredUnit &u : m.units) {
        u.layer = u.weights == block;
        m.layers += u.layer ? 1 : 0;
    }
}

// Hidden and the width from the square matrices; MLP, KV and vocabulary as multiples of hidden.
void readShape(ShardedModel &m)
{
    std::vector<uint64_t> all;
    for (const GatheredUnit &u : m.units)
        all.insert(all.end(), u.weights.begin(), u.weights.end());
    const std::optional<WeightWidth> width = weightWidthFromShapes(all);
    if (!width)
        return;
    m.gatheredBytes = width->bytes;
    m.hidden = width->hidden;
    const uint64_t row = m.hidden * uint64_t(m.gatheredBytes), square = row * m.hidden;
    std::map<uint64_t, int> wide, narrow;
    for (const GatheredUnit &u : m.units) {
        for (uint64_t w : u.weights) {
            if (w % row || w == square || w == row)
                continue;
            if (u.layer)
                ++(w > square ? wide : narrow)[w / row];
            else if (w > square)
                m.vocab = std::max<uint64_t>(m.vocab, w / row);
        }
    }
    if (!wide.empty())
        m.mlpWidth = mostFrequent(wide);
    if (!narrow.empty())
        m.kvWidth = mostFrequent(narrow);
}

// Logits over the vocabulary: the failed request (the loss's fp32 copy), else the largest live
// allocation of whole rows made by the unit that holds the vocabulary-sized weight.
void readTokens(ShardedModel &m, const DeviceIndex &index, const ModuleUnits &units, TracePoint at)
{
    if (m.vocab == 0) {
        m.tokens = {std::nullopt, "no vocabulary-sized weight among the gathered units", Confidence::Low};
        return;
    }
    const EventTable &events = index.events();
    if (!at.isStart() && events.action[at.lastEntry().index()] == Action::Oom) {
        const uint64_t request = events.size[at.lastEntry().index()];
        for (uint64_t bytes : {4, 2}) {
            if (request % (m.vocab * bytes) == 0) {
                m.tokens = {request / (m.vocab * bytes), "the failed request is logits of " + groupDigits(request / (m.vocab * bytes)) + " tokens × " +
                                                             groupDigits(m.vocab) + " at " + std::to_string(bytes) + " bytes",
                            Confidence::High};
                m.tokensFrom = "the failed request";
                return;
            }
        }
    }
    uint64_t best = 0;
    for (AllocationId id : index.liveAt(at)) {
        const uint64_t size = index.requestedBytes(id), row = m.vocab * uint64_t(m.gatheredBytes);
        const int32_t unit = units.unitOf(id);
        if (unit != ModuleUnits::kOutside && size % row == 0 && size / row > best && size > row * 16)
            best = size / row;
    }
    if (best)
        m.tokens = {best, "live logits of " + groupDigits(best) + " tokens × " + groupDigits(m.vocab), Confidence::Medium};
    else
        m.tokens = {std::nullopt, "no logits over the " + groupDigits(m.vocab) + "-word vocabulary", Confidence::Low};
    m.tokensFrom = "live logits";
}

// What each unit made that is live at the moment, whether its passes ran under checkpoint, and
// the shards fully_shard made.
void readUnitBytes(ShardedModel &m, const Snapshot &snapshot, const DeviceIndex &index, const ModuleUnits &units, TracePoint at)
{
    const auto checkpoint = stacksWithFrame(snapshot, [&](const Frame &f) { return hasPart(snapshot.strings.at(f.file), "torch/utils/checkpoint.py"); });
    const auto shard = stacksWithFrame(snapshot, [&](const Frame &f) {
        return hasPart(snapshot.strings.at(f.file), "_fsdp_param.py") && snapshot.strings.at(f.name) == "_init_sharded_param";
    });
    for (size_t a = 0; a < index.allocationCount(); ++a) {
        const AllocationId id(static_cast<uint32_t>(a));
        const int32_t unit = units.unitOf(id);
        const StackId stack = index.detail(id).stack;
        if (unit != ModuleUnits::kOutside && checkpoint[stack])
            m.units[size_t(unit)].checkpointed = true;
    }
    for (GatheredUnit &u : m.units) {
        for (AllocationId id : u.storages) {
            if (!id.isNone() && index.allocation(id).aliveAt(at))
                u.weightsLiveBytes += index.requestedBytes(id);
        }
    }
    for (AllocationId id : index.liveAt(at)) {
        const int32_t unit = units.unitOf(id);
        if (unit != ModuleUnits::kOutside)
            m.units[size_t(unit)].keptBytes += index.requestedBytes(id);
        else if (shard[index.detail(id).stack])
            m.shardTotal += index.requestedBytes(id);
    }
}

} // namespace

size_t ShardedModel::checkpointedLayers() const
{
    return size_t(std::count_if(units.begin(), units.end(), [](const GatheredUnit &u) { return u.layer && u.checkpointed; }));
}

std::optional<ShardedModel> shardedModel(const Snapshot &snapshot, const DeviceIndex &index, const ModuleUnits &units,
                                         const std::vector<PhaseRange> &phases, TracePoint at)
{
    if (units.source() != UnitSource::FsdpMarks)
        return std::nullopt;
    ShardedModel m;
    for (const std::string &name : units.names())
        m.units.push_back({name, {}, {}, 0, 0, false, false, false});
    const int64_t now = at.isStart() ? INT64_MIN : index.events().timeUs[at.lastEntry().index()];
    for (const UnitSpan &span : units.spans()) {
        if (!span.backward && span.endUs < now)
            m.units[span.unit].forwardDone = true;
    }
    readGathers(index, gatherSpans(phases, units), m.units);
    uint64_t gathered = 0;
    for (const GatheredUnit &u : m.units)
        gathered += totalBytes(u.weights);
    if (gathered == 0)
        return std::nullopt;
    markLayers(m);
    readShape(m);
    readUnitBytes(m, snapshot, index, units, at);
    readTokens(m, index, units, at);
    m.params = gathered / uint64_t(m.gatheredBytes);
    const size_t gatheredUnits = size_t(std::count_if(m.units.begin(), m.units.end(), [](const GatheredUnit &u) { return !u.weights.empty(); }));
    m.paramsHow = "the weights of the " + std::to_string(gatheredUnits) + " units FSDP gathered, " + formatBytes(gathered) + " at " +
                  std::to_string(m.gatheredBytes) + " bytes each";
    readWorld(m);
    return m;
}

void applyShardedModel(InferredSetup &setup, const ShardedModel &m)
{
    const Confidence shapeConfidence = m.hidden ? Confidence::High : Confidence::Medium;
    setup.params = {m.params, m.paramsHow, shapeConfidence};
    setup.paramDtype = {m.gatheredBytes == 2 ? Precision::Bf16 : Precision::Fp32,
                        std::string(m.gatheredBytes == 2 ? "gathered in 16 bits" : "gathered in fp32") +
                            (m.shardBytes ? std::string(", sharded in ") + (*m.shardBytes == 4 ? "fp32" : "16 bits") : std::string()) +
                            " (FSDP's mixed-precision policy)",
                        shapeConfidence};
    setup.autocast = {false, "FSDP casts the gathered weights itself", Confidence::Medium};
    const ModelShape *best = nullptr;
    for (const ModelShape &p : modelPresets()) {
        if (!p.isImage() && std::abs(double(parameterCount(p)) - double(m.params)) < 0.01 * double(m.params) &&
            (!best || std::abs(double(parameterCount(p)) - double(m.params)) < std::abs(double(parameterCount(*best)) - double(m.params))))
            best = &p;
    }
    if (best) {
        setup.preset = {best->name, "the whole model's " + groupDigits(m.params) + " parameters are " + best->name + "'s count", shapeConfidence};
        setup.family = best->family;
        setup.input.model = *best;
        setup.hasShape = true;
        setup.shapeFromTemplate = false;
    }
    setup.tokens = m.tokens;
    if (m.world.value)
        setup.gpus = m.world;
    setup.parallelism = {Parallelism{true, 3}, "FSDP's hook marks (FSDP::pre_forward per unit)", Confidence::High};
    if (m.layers > 0) {
        const size_t checkpointed = m.checkpointedLayers();
        setup.checkpointing = {checkpointed > 0, std::to_string(checkpointed) + " of " + std::to_string(m.layers) + " layers run under torch.utils.checkpoint",
                               Confidence::High};
    }
    // A trace that ends before the first backward shows neither gradients nor optimizer state;
    // FSDP trains what it shards, with AdamW in the common case.
    if (setup.trainableParams.value.value_or(0) == 0)
        setup.trainableParams = {m.params, "the trace ends before any gradient: every parameter is taken as trained", Confidence::Low};
    if (setup.optimizer.value.value_or(Optimizer::None) == Optimizer::None)
        setup.optimizer = {Optimizer::AdamW, "the trace ends before the first optimizer step: AdamW assumed", Confidence::Low};
    EstimateInput &in = setup.input;
    in.optimizer = *setup.optimizer.value;
    in.inference = false;
    in.zeroStage = 3;
    in.gpus = m.world.value.value_or(in.gpus);
    // Gathered in 16 bits is FSDP's mixed precision, which the estimator's bf16 under FSDP is.
    in.precision = m.gatheredBytes == 2 ? Precision::Bf16 : Precision::Fp32;
    if (setup.trainableParams.value.value_or(0) >= m.params / 2) {
        in.loraRank = 0; // the guess made before the run was read whole
        in.qlora = false;
    }
    // Every N-th layer checkpointed (torchtitan's layer AC) when that many are, else all or none.
    if (const size_t checkpointed = m.layers > 0 ? m.checkpointedLayers() : 0; checkpointed > 0 && checkpointed < size_t(m.layers)) {
        in.checkpointing = Checkpointing::EveryN;
        in.checkpointEvery = static_cast<int>(size_t(m.layers) / checkpointed);
    } else {
        in.checkpointing = checkpointed > 0 ? Checkpointing::Full : Checkpointing::None;
        in.checkpointEvery = 0;
    }
    if (m.tokens.value) {
        in.batch = 1;
        in.seq = int(*m.tokens.value);
    }
}

} // namespace memlens
