#include "advice/AdviceReport.h"

#include "model/ByteFormat.h"
#include "report/OptionalJson.h"
#include "report/SummaryReport.h"

#include <algorithm>
#include <sstream>

namespace memlens {

namespace {

template <typename T>
nlohmann::json field(const Inferred<T> &f)
{
    nlohmann::json j = {{"value", nullptr}, {"how", f.how}, {"confidence", kConfidenceNames.name(f.confidence)}};
    if constexpr (std::is_same_v<T, Parallelism>) {
        if (f.value)
            j["value"] = {{"distributed", f.value->distributed}, {"sharding_stage", f.value->shardingStage}};
    } else if constexpr (std::is_same_v<T, Precision>) {
        if (f.value)
            j["value"] = precisionName(*f.value);
    } else if constexpr (std::is_same_v<T, Optimizer>) {
        if (f.value)
            j["value"] = optimizerName(*f.value);
    } else if (f.value) {
        j["value"] = *f.value;
    }
    return j;
}

} // namespace

nlohmann::json inferredJson(const InferredSetup &s)
{
    return {{"params", field(s.params)},
            {"trainable_params", field(s.trainableParams)},
            {"param_dtype", field(s.paramDtype)},
            {"autocast", field(s.autocast)},
            {"optimizer", field(s.optimizer)},
            {"tokens", field(s.tokens)},
            {"batch", field(s.batch)},
            {"preset", field(s.preset)},
            {"checkpointing", field(s.checkpointing)},
            {"parallelism", field(s.parallelism)},
            {"gpus", field(s.gpus)},
            {"shape", s.hasShape ? nlohmann::json(s.input.model.name) : nlohmann::json(nullptr)},
            {"shape_is_template", s.shapeFromTemplate}};
}

namespace {

// The whole model read from an FSDP rank's gathers (null for other runs).
nlohmann::json shardingJson(const std::optional<ShardedModel> &m)
{
    if (!m)
        return nullptr;
    nlohmann::json units = nlohmann::json::array();
    for (const GatheredUnit &u : m->units) {
        uint64_t weights = 0;
        for (uint64_t w : u.weights)
            weights += w;
        units.push_back({{"module", u.name}, {"gathered_bytes", weights}, {"kept_bytes", u.keptBytes}, {"layer", u.layer}, {"checkpointed", u.checkpointed}});
    }
    return {{"world_size", optionalJson(m->world.value)},  {"params", m->params},      {"hidden", m->hidden},   {"kv_width", m->kvWidth},
            {"mlp_width", m->mlpWidth},                    {"vocab", m->vocab},        {"layers", m->layers},   {"tokens_per_rank", optionalJson(m->tokens.value)},
            {"gathered_bytes_per_value", m->gatheredBytes}, {"shard_bytes_per_value", optionalJson(m->shardBytes)},
            {"shard_bytes", m->shardTotal},                {"units", units}};
}

void writeSharding(std::ostringstream &out, const ShardedModel &m)
{
    const auto gathered = std::count_if(m.units.begin(), m.units.end(), [](const GatheredUnit &u) { return !u.weights.empty(); });
    out << "Sharding: " << gathered << " FSDP units, " << m.layers << " of them layers (" << m.checkpointedLayers() << " checkpointed); hidden "
        << groupDigits(m.hidden) << ", MLP " << groupDigits(m.mlpWidth) << ", KV " << groupDigits(m.kvWidth) << ", vocabulary " << groupDigits(m.vocab)
        << "; " << formatBytes(m.shardTotal) << " of shards on this rank\n";
}

} // namespace

nlohmann::json adviceJson(const std::string &file, int device, const Advice &a)
{
    nlohmann::json fixes = nlohmann::json::array();
    for (const Fix &f : a.fixes) {
        nlohmann::json j = {{"technique", f.technique}, {"effort", kEffortNames.name(f.effort)}, {"saves_bytes", f.savesBytes}, {"peak_after_bytes", f.peakAfterBytes},
                            {"fits", nullptr},          {"why", f.why},                {"affects", f.affects}};
        if (f.fits)
            j["fits"] = *f.fits;
        if (f.marginBytes) {
            j["margin_bytes"] = *f.marginBytes;
            j["thin_margin"] = f.thinMargin;
        }
        if (!f.layers.empty())
            j["layers"] = f.layers;
        fixes.push_back(std::move(j));
    }
    nlohmann::json j = {{"file", file},
                        {"device", device},
                        {"at", a.oom ? "oom" : "peak"},
                        {"event", pointJson(a.point)},
                        {"peak_bytes", a.peakBytes},
                        {"reserved_bytes", a.reservedBytes},
                        {"needed_bytes", a.neededBytes},
                        {"not_tried", a.notTried},
                        {"category_bytes", categoryBytesJson(a.categories)},
                        {"logits_bytes", a.logitsBytes},
                        {"attention_score_bytes", a.attentionScoreBytes},
                        {"capacity_bytes", nullptr},
                        {"capacity_how", a.capacityHow},
                        {"inferred", inferredJson(a.setup)},
                        {"sharding", shardingJson(a.sharded)},
                        {"fixes", fixes},
                        {"no_fixes_because", a.noFixesBecause}};
    if (a.capacity)
        j["capacity_bytes"] = *a.capacity;
    j["outside_allocator_bytes"] = optionalJson(a.outsideAllocatorBytes);
    return j;
}

std::string adviceText(const std::string &file, int device, const Advice &a)
{
    std::ostringstream out;
    const InferredSetup &s = a.setup;
    out << file << " (device " << device << "), at the " << (a.oom ? "OOM" : "peak") << ": " << formatBytes(a.peakBytes) << " allocated, "
        << formatBytes(a.reservedBytes) << " reserved";
    if (a.capacity)
        out << ", capacity " << formatBytes(*a.capacity) << " (" << a.capacityHow << ")";
    out << "\nSetup:\n";
    // A low-confidence value is marked as a guess.
    auto line = [&](const char *label, const auto &field, const std::string &value) {
        const bool guess = !value.empty() && field.confidence == Confidence::Low;
        out << "  " << label << (value.empty() ? "?" : value) << (guess ? " (guess)" : "") << "  — " << field.how << "\n";
    };
    line("parameters      ", s.params, s.params.value ? groupDigits(*s.params.value) : "");
    line("trainable       ", s.trainableParams, s.trainableParams.value ? groupDigits(*s.trainableParams.value) : "");
    const bool autocast = s.autocast.value.value_or(false);
    const std::string width = !s.paramDtype.value ? "" : s.fp16 && !autocast && *s.paramDtype.value == Precision::Bf16 ? "fp16" : precisionName(*s.paramDtype.value);
    line("weights         ", s.paramDtype, width + (autocast ? (s.fp16 ? " + autocast (fp16)" : " + autocast") : ""));
    line("optimizer       ", s.optimizer, s.optimizer.value ? optimizerName(*s.optimizer.value) : "");
    line("model           ", s.preset, s.preset.value.value_or(""));
    if (s.tokens.value || !s.tokens.how.empty())
        line("tokens          ", s.tokens, s.tokens.value ? groupDigits(*s.tokens.value) : "");
    if (s.batch.value)
        line("batch           ", s.batch, groupDigits(*s.batch.value));
    line("checkpointing   ", s.checkpointing, s.checkpointing.value ? (*s.checkpointing.value ? "yes" : "no") : "");
    line("parallelism     ", s.parallelism, !s.parallelism.value ? ""
                                              : !s.parallelism.value->distributed ? "one GPU"
                                              : s.parallelism.value->shardingStage == 0 ? "data parallel"
                                                                                        : "sharded (stage " + std::to_string(s.parallelism.value->shardingStage) + ")");
    line("GPUs            ", s.gpus, s.gpus.value ? std::to_string(*s.gpus.value) : "");
    if (a.sharded)
        writeSharding(out, *a.sharded);
    out << "What would help (what fits first, least effort first; then the largest saving). The run needed " << formatBytes(a.neededBytes)
        << " reserved" << (a.oom ? " at its OOM" : " at its peak") << "; each peak is what it needs reserved at its highest after the fix:\n";
    if (a.fixes.empty())
        out << "  " << a.noFixesBecause << "\n";
    for (const Fix &f : a.fixes) {
        out << "  " << f.technique << " [" << kEffortNames.name(f.effort) << "]: saves " << formatBytes(uint64_t(f.savesBytes)) << ", peak "
            << formatBytes(f.peakAfterBytes);
        if (f.fits)
            out << (*f.fits ? ", fits" : ", still does not fit");
        if (f.marginBytes)
            out << ", " << marginText(f, *a.capacity);
        out << "\n      " << f.why << "\n";
    }
    if (!a.notTried.empty())
        out << "  Not tried: " << a.notTried << "\n";
    return out.str();
}

} // namespace memlens
