#include "advice/ShardedFixes.h"

#include "model/ByteFormat.h"

#include <algorithm>
#include <array>

namespace memlens {

namespace {

uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

std::string stepText(const ShardedStep &s)
{
    return formatBytes(s.peak()) + " at its " + s.peakPhase() + " (forward " + formatBytes(s.forward) + ", loss " + formatBytes(s.loss) +
           ", backward " + formatBytes(s.backward) + ", optimizer step " + formatBytes(s.optimizer) + ")";
}

} // namespace

ShardedRecord shardedRecord(const Advice &a, const ShardedModel &m, uint64_t request)
{
    ShardedRecord r;
    r.live = minus(a.peakBytes, request);
    r.logits = a.logitsBytes;
    r.logitsFp32 = m.tokens.value && m.vocab ? *m.tokens.value * m.vocab * 4 : request;
    r.shards = m.shardTotal;
    for (const GatheredUnit &u : m.units) {
        const uint64_t made = minus(u.keptBytes, u.weightsLiveBytes);
        r.activations += made;
        if (u.forwardDone)
            r.keptWeights += u.weightsLiveBytes;
        uint64_t weights = 0;
        for (uint64_t w : u.weights)
            weights += w;
        r.largestUnit = std::max(r.largestUnit, weights);
        if (u.layer) {
            r.largestLayer = std::max(r.largestLayer, weights / uint64_t(m.gatheredBytes));
            if (!u.checkpointed) {
                r.layerExtra += minus(made, m.unitInputBytes());
                r.recompute = std::max(r.recompute, made);
                ++r.plainLayers;
                r.plain.push_back({minus(made, m.unitInputBytes()), &u});
            }
        }
    }
    std::stable_sort(r.plain.begin(), r.plain.end(), [](const auto &x, const auto &y) { return x.first > y.first; });
    return r;
}

ShardedStep shardedStep(const Advice &a, const ShardedModel &m, uint64_t request, const ShardedChange &c);

namespace {

// The fewest more layers to checkpoint for the whole step to fit the capacity, those keeping
// most first, when that is fewer than all of them ("checkpoint-remaining-layers" is all).
template <typename Add>
void addCheckpointPlan(Advice &a, const ShardedModel &m, uint64_t request, const ShardedRecord &r, const Add &add)
{
    if (!a.capacity || r.plain.size() < 2)
        return;
    for (size_t n = 1; n < r.plain.size(); ++n) {
        if (shardedFixPeak(a, shardedStep(a, m, request, {.checkpointLayers = n}), r.extraOfMost(n)) > *a.capacity)
            continue;
        std::vector<const GatheredUnit *> chosen;
        for (size_t i = 0; i < n; ++i)
            chosen.push_back(r.plain[i].second);
        std::sort(chosen.begin(), chosen.end()); // the order they run in: m.units's
        std::vector<std::string> names;
        std::string listed;
        for (const GatheredUnit *u : chosen) {
            names.push_back(u->name);
            listed += (listed.empty() ? "" : ", ") + u->name;
        }
        add("checkpoint-fewest-layers", Effort::Loop, {.checkpointLayers = n}, r.extraOfMost(n),
            "the fewest of the " + std::to_string(r.plain.size()) + " layers not checkpointed that make the whole step fit: " +
                std::to_string(n) + " (" + listed + "), each keeping its input instead of " +
                formatBytes(r.plain.front().first + m.unitInputBytes()));
        a.fixes.back().layers = std::move(names);
        return;
    }
}

} // namespace

uint64_t shardedFixPeak(const Advice &a, const ShardedStep &step, uint64_t savesAtMoment)
{
    const uint64_t overhead = minus(a.neededBytes, a.peakBytes);
    return std::max(minus(a.neededBytes, savesAtMoment), step.peak() + overhead);
}

uint64_t ShardedStep::peak() const
{
    return std::max({forward, loss, backward, optimizer});
}

std::string ShardedStep::peakPhase() const
{
    const uint64_t p = peak();
    return p == backward ? "backward" : p == loss ? "loss" : p == optimizer ? "optimizer step" : "forward";
}

// Forward: what the rank recorded, less what the change removes. Loss: the fp32 copy of the
// logits and log_softmax's fp32 output. Backward, at its start: the logits' gradient, two units
// gathered again (the one running and the one prefetched), the running unit's fp32 gradients
// before the reduce-scatter, and a checkpointed layer recomputed. Optimizer step: shards, their
// fp32 gradients and AdamW's two moments (the first iteration has not stepped yet: AdamW is the
// common case), beside what stays from step to step.
ShardedStep shardedStep(const Advice &a, const ShardedModel &m, uint64_t request, const ShardedChange &c)
{
    const ShardedRecord r = shardedRecord(a, m, request);
    const uint64_t shards = c.offloadShards ? 0 : r.shards / uint64_t(std::max(1, c.worldFactor));
    const uint64_t shardValues = m.shardBytes ? shards / uint64_t(*m.shardBytes) : shards / 4;
    const uint64_t chunk = r.logits / 8;
    ShardedStep s;
    const uint64_t layersFreed = c.checkpointAll ? r.layerExtra : r.extraOfMost(c.checkpointLayers);
    s.forward = minus(r.live, (c.chunkedLoss ? r.logits - chunk : 0) + layersFreed + (c.reshardAll ? r.keptWeights : 0) + (r.shards - shards));
    s.loss = s.forward + (c.chunkedLoss ? 2 * (r.logitsFp32 / 8) : 2 * r.logitsFp32);
    const bool recomputes = c.checkpointAll || c.checkpointLayers > 0 || m.checkpointedLayers() > 0;
    s.backward = s.forward + (c.chunkedLoss ? chunk : r.logits) + 2 * r.largestUnit + r.largestLayer * 4 + (recomputes ? r.recompute : 0);
    const uint64_t persistent = minus(s.forward, r.activations + (c.chunkedLoss ? chunk : r.logits) + shards);
    s.optimizer = persistent + shards + (c.offloadShards ? 0 : shardValues * 4 * 3);
    return s;
}

void addShardedFixes(Advice &a, const ShardedModel &m, uint64_t request)
{
    const ShardedRecord r = shardedRecord(a, m, request);
    const bool failedOnLogits = a.oom && m.tokensFrom == "the failed request";
    auto add = [&](const std::string &technique, Effort effort, const ShardedChange &change, uint64_t saves, std::string why) {
        if (saves == 0)
            return;
        const ShardedStep step = shardedStep(a, m, request, change);
        const uint64_t recordedAfter = minus(a.peakBytes, saves);
        if (a.capacity) {
            why += recordedAfter <= *a.capacity ? "; clears the recorded " + std::string(a.oom ? "OOM" : "peak") + " (" + formatBytes(recordedAfter) + ")"
                                                : "; the recorded part alone still needs " + formatBytes(recordedAfter);
        }
        why += "; the whole step as FSDP runs it: " + stepText(step);
        const uint64_t peak = shardedFixPeak(a, step, saves);
        if (peak >= a.neededBytes)
            return;
        a.fixes.push_back({technique, effort, int64_t(a.neededBytes - peak), peak, a.capacity ? std::optional(peak <= *a.capacity) : std::nullopt,
                           std::move(why), {}, std::nullopt, std::nullopt, false});
    };
    if (r.logits || failedOnLogits) {
        const uint64_t saves = (failedOnLogits ? request : 0) + r.logits - r.logits / 8;
        add("chunked-cross-entropy", Effort::Loop, {.chunkedLoss = true}, saves,
            std::string(failedOnLogits ? "the allocation that failed is the loss's fp32 copy of the logits (" + formatBytes(request) + "); " : "") +
                "a fused or chunked linear cross-entropy (e.g. Liger's, or loss parallel) never holds the " + formatBytes(r.logits) +
                " of logits and their fp32 copies whole");
    }
    if (r.plainLayers > 0 && r.layerExtra > 0)
        add("checkpoint-remaining-layers", Effort::Loop, {.checkpointAll = true}, r.layerExtra,
            std::to_string(r.plainLayers) + " of " + std::to_string(m.layers) + " layers are not checkpointed and keep " +
                formatBytes(r.layerExtra) + " beyond one input each; checkpointed, each keeps its input (" + formatBytes(m.unitInputBytes()) + ")");
    addCheckpointPlan(a, m, request, r, add);
    if (r.keptWeights > 0)
        add("reshard-after-forward", Effort::Loop, {.reshardAll = true}, r.keptWeights,
            formatBytes(r.keptWeights) + " of gathered weights stay after their units' forward (reshard_after_forward=False); resharding frees them "
                                        "and gathers them again for backward");
    if (r.shards > 0) {
        add("cpu-offload", Effort::Hardware, {.offloadShards = true}, r.shards,
            "fully_shard(offload_policy=CPUOffloadPolicy()) keeps the " + formatBytes(r.shards) +
                " of shards, their gradients and the optimizer state on the CPU (the step then runs there)");
        if (m.world.value)
            add("fsdp over " + std::to_string(2 * *m.world.value) + " GPUs", Effort::Hardware, {.worldFactor = 2}, r.shards - r.shards / 2,
                "twice the ranks halve the shards, their gradients and the optimizer state; activations and logits are per rank's tokens and "
                "do not divide");
    }
    if (a.capacity && std::none_of(a.fixes.begin(), a.fixes.end(), [](const Fix &f) { return f.fits.value_or(false); }) && r.logits && r.layerExtra)
        add("chunked-cross-entropy + checkpoint-remaining-layers", Effort::Loop, {.chunkedLoss = true, .checkpointAll = true},
            (failedOnLogits ? request : 0) + r.logits - r.logits / 8 + r.layerExtra, "both of the above together");
}

} // namespace memlens
