#include "advice/SetupInference.h"

#include "advice/SetupEstimateInput.h"

#include "advice/FrameFacts.h"
#include "advice/InferredShape.h"
#include "advice/OperatorPrecision.h"

#include "advice/WeightWidth.h"
#include "figures/FileHealth.h"
#include "index/StackMatch.h"
#include "model/ByteFormat.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

namespace memlens {

namespace {

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

// The optimizer whose code created the state, from its stacks' files.
std::optional<Optimizer> optimizerOfStacks(const Snapshot &s, const std::vector<StackId> &stacks, std::string &file)
{
    static const std::pair<std::string_view, Optimizer> kOptimizers[] = {
        {"bitsandbytes/", Optimizer::AdamW8bit}, {"torch/optim/adamw.py", Optimizer::AdamW}, {"torch/optim/adam.py", Optimizer::AdamW},
        {"torch/optim/sgd.py", Optimizer::Sgd},  {"adafactor", Optimizer::Adafactor},          {"lion", Optimizer::Lion},
    };
    for (StackId stack : stacks) {
        for (FrameId id : s.stacks.at(stack)) {
            const std::string_view f = s.strings.at(s.frames.at(id).file);
            for (const auto &[part, optimizer] : kOptimizers) {
                if (contains(f, part)) {
                    file = std::string(f.substr(f.find(part)));
                    return optimizer;
                }
            }
        }
    }
    return std::nullopt;
}

std::string gib(double bytes)
{
    return formatBytes(static_cast<uint64_t>(std::max(0.0, bytes)));
}

// The preset whose parameter count is within 1 % of `params`, closest first.
const ModelShape *presetOfSize(double params, std::optional<ModelFamily> family)
{
    const ModelShape *best = nullptr;
    double bestDiff = 0.01;
    for (const ModelShape &m : modelPresets()) {
        const double diff = std::abs(double(parameterCount(m)) - params) / params;
        if ((!family || m.family == *family) && diff < bestDiff) {
            bestDiff = diff;
            best = &m;
        }
    }
    return best;
}

// The largest quotient size ÷ unit among the given allocations: a 16-bit tensor of twice as
// many elements must not pass for the fp32 one, and the fp32 copy is the larger.
template <typename Ids, typename Keep>
std::optional<uint64_t> largestQuotient(const DeviceIndex &index, const Ids &ids, const Keep &keep, uint64_t unit, uint64_t maxQuotient)
{
    std::optional<uint64_t> best;
    for (AllocationId id : ids) {
        if (!keep(id))
            continue;
        const uint64_t size = index.requestedBytes(id);
        if (size >= unit && size % unit == 0 && size / unit <= maxQuotient)
            best = std::max(best.value_or(0), size / unit);
    }
    return best;
}

// The most frequent quotient (ties: the larger), for inputs repeated every step.
template <typename Ids>
std::optional<uint64_t> commonQuotient(const DeviceIndex &index, const Ids &ids, uint64_t unit, uint64_t maxQuotient)
{
    std::map<uint64_t, int> counts;
    for (AllocationId id : ids) {
        const uint64_t size = index.requestedBytes(id);
        if (size >= unit && size % unit == 0 && size / unit <= maxQuotient)
            ++counts[size / unit];
    }
    std::optional<uint64_t> best;
    int bestCount = 0;
    for (const auto &[q, n] : counts) {
        if (n >= bestCount) {
            best = q;
            bestCount = n;
        }
    }
    return best;
}

// Every allocation id as a range (the fuzzing build's clang cannot compile libstdc++ 12's views::iota).
struct AllocationIds {
    struct Iterator {
        uint32_t id;
        AllocationId operator*() const { return AllocationId(id); }
        Iterator &operator++()
        {
            ++id;
            return *this;
        }
        bool operator!=(const Iterator &other) const { return id != other.id; }
    };
    uint32_t count;
    Iterator begin() const { return {0}; }
    Iterator end() const { return {count}; }
};

AllocationIds allAllocations(const DeviceIndex &index)
{
    return {static_cast<uint32_t>(index.allocationCount())};
}

// What the trace measured per category, for the evidence below.
struct Measured {
    uint64_t paramBytes = 0; // at the moment asked about
    uint64_t gradBytes = 0;  // gradients and optimizer state at their largest over the run (an
    uint64_t stateBytes = 0; // OOM in the first step may come before either exists)
    std::unordered_set<uint64_t> paramSizes; // of weights of 1 MiB and more
    std::vector<uint64_t> allParamSizes;
    std::vector<StackId> stateStacks; // the first 64 distinct stacks that made optimizer state
    // Distinct sizes (bytes) of optimizer-state tensors, else of gradients: the trained tensors'
    // shapes, up to kTrainedSizes of them (a LoRA run's adapters have a handful).
    std::vector<uint64_t> trainedSizes;
    static constexpr size_t kTrainedSizes = 256;
};

Measured measure(const DeviceIndex &index, const AllocationCategories &categories, TracePoint at)
{
    Measured m;
    m.paramBytes = categories.totalsAt(at)[size_t(Category::Parameter)];
    std::unordered_set<StackId> seenStacks;
    std::unordered_set<uint64_t> stateSizes, gradSizes;
    for (AllocationId id : allAllocations(index)) {
        const Category c = categories.of(id);
        const AllocationDetail d = index.detail(id);
        if (c == Category::Parameter && d.size >= (1u << 20))
            m.paramSizes.insert(d.size);
        if (c == Category::Parameter)
            m.allParamSizes.push_back(d.size);
        if (c == Category::OptimizerState && seenStacks.insert(d.stack).second && m.stateStacks.size() < 64)
            m.stateStacks.push_back(d.stack);
        if (c == Category::OptimizerState && stateSizes.size() <= Measured::kTrainedSizes)
            stateSizes.insert(d.size);
        if (c == Category::Gradient && gradSizes.size() <= Measured::kTrainedSizes)
            gradSizes.insert(d.size);
    }
    const std::unordered_set<uint64_t> &trained = stateSizes.empty() ? gradSizes : stateSizes;
    if (trained.size() <= Measured::kTrainedSizes)
        m.trainedSizes.assign(trained.begin(), trained.end());
    auto widen = [&](TracePoint p) {
        const auto t = categories.totalsAt(p);
        m.gradBytes = std::max(m.gradBytes, t[size_t(Category::Gradient)]);
        m.stateBytes = std::max(m.stateBytes, t[size_t(Category::OptimizerState)]);
    };
    for (uint32_t e = 0; e < index.eventCount(); e += AllocationCategories::kCheckpointEvery)
        widen(TracePoint::after(EventId(e)));
    if (index.eventCount())
        widen(index.end());
    return m;
}

// Autocast: the trace's recorded input types, its decorator in the stacks, or forward-time
// copies of exactly half a weight's size.
Inferred<bool> inferAutocast(const FrameFacts &facts, const DeviceIndex &index, const AllocationCategories &categories, const Measured &m,
                             const std::optional<OperatorPrecision> &ops)
{
    if (ops)
        return {ops->autocast, ops->how, Confidence::High};
    size_t halfCopies = 0;
    if (!m.paramSizes.empty()) {
        std::unordered_set<uint64_t> halved;
        for (AllocationId id : allAllocations(index)) {
            const Category c = categories.of(id);
            const uint64_t size = index.requestedBytes(id);
            if ((c == Category::Activation || c == Category::Temporary) && m.paramSizes.count(size * 2))
                halved.insert(size * 2);
        }
        halfCopies = halved.size();
    }
    // autocast's __exit__ frees its cast cache, so its frames are recorded only when it cast
    // something. Half-size copies alone can be activations of a coincident shape (a run of
    // varying sequence lengths has many), so they count only when nearly every weight size has one.
    const bool halfCopyEvidence = m.paramSizes.size() >= 4 && halfCopies * 4 >= m.paramSizes.size() * 3;
    return {facts.autocast || halfCopyEvidence,
            (facts.autocast ? "autocast's __exit__ (torch/amp/autocast_mode.py) freed cast copies; " : "") + std::to_string(halfCopies) + " of " +
                std::to_string(m.paramSizes.size()) + " weight sizes have a half-size copy made during the step",
            facts.autocast ? Confidence::High : Confidence::Medium};
}

// Without parameter allocations (a trace begun mid-training), the gradients backward makes are
// one per trained weight: their total at a family preset's count, at 2 or 4 bytes each, says
// the count and the width.
// The recorded input types, when the trace has them, say the width first.
const ModelShape *weightsFromGradients(InferredSetup &out, const FrameFacts &facts, const Measured &m, const std::optional<OperatorPrecision> &ops,
                                       double &bytesPerParam)
{
    const bool may16 = !ops || ops->weightBytes == 2, may32 = !ops || ops->weightBytes == 4;
    const ModelShape *p16 = may16 && facts.family && m.gradBytes ? presetOfSize(m.gradBytes / 2.0, facts.family) : nullptr;
    const ModelShape *p32 = may32 && facts.family && m.gradBytes ? presetOfSize(m.gradBytes / 4.0, facts.family) : nullptr;
    if (!p16 && !p32) {
        out.params = {std::nullopt, "no parameter allocations in the trace (created before recording began?)", Confidence::Low};
        if (ops)
            out.paramDtype = {ops->weightBytes == 2 ? Precision::Bf16 : Precision::Fp32, ops->how, Confidence::High};
        else
            out.paramDtype = {std::nullopt, "no parameters to measure", Confidence::Low};
        return nullptr;
    }
    const ModelShape *preset = p16 ? p16 : p32;
    bytesPerParam = p16 ? 2 : 4;
    const std::string how = "no parameter allocations in the trace; its gradients, " + gib(double(m.gradBytes)) + ", are " + preset->name +
                            "'s count at " + std::to_string(int(bytesPerParam)) + " bytes each";
    if (ops)
        out.paramDtype = {p16 ? Precision::Bf16 : Precision::Fp32, how + "; " + ops->how, Confidence::High};
    else
        out.paramDtype = {p16 ? Precision::Bf16 : Precision::Fp32, how + (p16 ? " (bf16 and fp16 are the same size; bf16 assumed)" : ""),
                          Confidence::Medium};
    out.params = {parameterCount(*preset), how, ops ? Confidence::High : Confidence::Medium};
    return preset;
}

// Weight dtype and count: from the tensors' shapes (WeightWidth), under autocast fp32, and a
// preset's exact count at that width confirms; a preset's count alone is one kind of evidence.
// Returns the preset matched, and the bytes per parameter in `bytesPerParam`.
const ModelShape *inferWeights(InferredSetup &out, const FrameFacts &facts, const Measured &m, const std::optional<WeightWidth> &width,
                               const std::optional<OperatorPrecision> &ops, double &bytesPerParam)
{
    bytesPerParam = 4;
    if (m.paramBytes == 0)
        return weightsFromGradients(out, facts, m, ops, bytesPerParam);
    const ModelShape *preset = nullptr;
    const ModelShape *p32 = presetOfSize(m.paramBytes / 4.0, facts.family), *p16 = presetOfSize(m.paramBytes / 2.0, facts.family);
    auto confirmedBy = [&](const ModelShape *p, int bytes) {
        return p ? "; " + gib(double(m.paramBytes)) + " of parameters is " + p->name + "'s count at " + std::to_string(bytes) + " bytes each" : std::string();
    };
    if (*out.autocast.value) {
        preset = p32;
        const bool agrees = width && width->bytes == 4;
        out.paramDtype = {Precision::Fp32, "autocast runs on fp32 weights" + (agrees ? "; " + width->how : std::string()),
                          facts.autocast || agrees ? Confidence::High : Confidence::Medium};
    } else if (ops) {
        bytesPerParam = ops->weightBytes;
        preset = ops->weightBytes == 4 ? p32 : p16;
        out.paramDtype = {ops->weightBytes == 4 ? Precision::Fp32 : Precision::Bf16, ops->how + confirmedBy(preset, ops->weightBytes), Confidence::High};
    } else if (width) {
        bytesPerParam = width->bytes;
        preset = width->bytes == 4 ? p32 : p16;
        out.paramDtype = {width->bytes == 4 ? Precision::Fp32 : Precision::Bf16,
                          width->how + (width->bytes == 2 ? " (bf16 and fp16 are the same size; bf16 assumed)" : "") + confirmedBy(preset, width->bytes),
                          preset ? Confidence::High : Confidence::Medium};
    } else if (p32 || p16) {
        preset = p32 ? p32 : p16;
        bytesPerParam = p32 ? 4 : 2;
        out.paramDtype = {p32 ? Precision::Fp32 : Precision::Bf16, confirmedBy(preset, int(bytesPerParam)).substr(2) + "; the tensor shapes do not say",
                          Confidence::Medium};
    } else {
        out.paramDtype = {Precision::Fp32, "assumed: neither the tensor shapes nor a preset's count tell the width", Confidence::Low};
    }
    out.params = {static_cast<uint64_t>(std::llround(m.paramBytes / bytesPerParam)),
                  gib(double(m.paramBytes)) + " alive from Module.to / parameter initialisation, at " + std::to_string(int(bytesPerParam)) + " bytes each",
                  out.paramDtype.confidence};
    return preset;
}

// The optimizer: who created the state, and its size per trainable parameter.
Inferred<Optimizer> inferOptimizer(const Snapshot &snapshot, const Measured &m, double params, double bytesPerParam)
{
    std::string stateFile;
    const std::optional<Optimizer> byStack = optimizerOfStacks(snapshot, m.stateStacks, stateFile);
    const double ratio = params > 0 ? double(m.stateBytes) / (params * bytesPerParam) : 0;
    if (!snapshot.facts.hasFrames) // no stack says who made what: state and gradients are not told apart
        return {std::nullopt, std::string(kNotRecordedNoStacks), Confidence::Low};
    if (m.stateBytes == 0)
        return m.gradBytes ? Inferred<Optimizer>{std::nullopt, "gradients but no optimizer state yet (stopped before the first step?)", Confidence::Low}
                           : Inferred<Optimizer>{Optimizer::None, "neither gradients nor optimizer state in the trace", Confidence::High};
    if (byStack)
        return {byStack, "state created in " + stateFile + ", " + gib(double(m.stateBytes)) + " of it", Confidence::High};
    const std::string r = std::to_string(ratio).substr(0, 4);
    return ratio > 1.5   ? Inferred<Optimizer>{Optimizer::AdamW, "state is " + r + "× the parameters (two moments)", Confidence::Medium}
           : ratio > 0.8 ? Inferred<Optimizer>{Optimizer::Sgd, "state is " + r + "× the parameters (one momentum buffer)", Confidence::Medium}
                         : Inferred<Optimizer>{std::nullopt, "state is " + r + "× the parameters", Confidence::Low};
}

// Trainable parameters: from the state per parameter of that optimizer, else the gradients.
// Far fewer than all (LoRA) means fp32 adapters, which PEFT upcasts even on a bf16 model; the
// parameter count then counts them once.
void inferTrainable(InferredSetup &out, const Measured &m, double params, double bytesPerParam)
{
    const std::optional<Optimizer> opt = out.optimizer.value;
    const double statePerValue = opt == Optimizer::AdamW ? 2 : opt == Optimizer::Sgd || opt == Optimizer::Lion ? 1 : 0;
    if (statePerValue > 0 && params > 0) {
        double trainable = m.stateBytes / (statePerValue * bytesPerParam);
        if (trainable < 0.5 * params)
            trainable = m.stateBytes / (statePerValue * 4);
        out.trainableParams = {static_cast<uint64_t>(std::llround(std::min(trainable, params))),
                               gib(double(m.stateBytes)) + " of " + optimizerName(*opt) + " state, " + std::to_string(int(statePerValue)) +
                                   " value(s) per trainable parameter",
                               std::min(out.optimizer.confidence, out.params.confidence)};
        // 16-bit weights with fp32 adapters: the adapters' 4 bytes each are not two parameters.
        if (bytesPerParam == 2 && trainable < 0.5 * params) {
            const double base = (double(m.paramBytes) - 4 * trainable) / 2;
            out.params.value = static_cast<uint64_t>(std::llround(base + trainable));
            out.params.how += ", of which " + groupDigits(*out.trainableParams.value) + " trainable adapters at 4 bytes (PEFT keeps them fp32)";
        }
    } else if (m.gradBytes > 0 && params > 0) {
        out.trainableParams = {static_cast<uint64_t>(std::llround(std::min(m.gradBytes / bytesPerParam, params))),
                               "the largest gradient total, " + gib(double(m.gradBytes)), out.params.confidence};
    } else if (opt == Optimizer::None && params > 0) {
        out.trainableParams = {0, "nothing is trained: no gradients", Confidence::High};
    } else {
        out.trainableParams = {std::nullopt, "no optimizer state of a known layout and no gradients", Confidence::Low};
    }
}

// The preset, or a shape as inferred on the family's closest one (shapeAsInferred), written to
// `measuredShape`: the shape the estimator's rules work on.
const ModelShape *inferShape(InferredSetup &out, const FrameFacts &facts, const ModelShape *preset, double params, const Measured &m,
                             const std::optional<WeightWidth> &width, ModelShape &measuredShape)
{
    const ModelShape *shape = preset;
    if (preset) {
        out.preset = {preset->name, "parameter count within 1 % of " + preset->name + "'s", out.paramDtype.confidence};
    } else {
        out.preset.confidence = Confidence::Low;
        out.preset.how = !facts.family ? "model family not recognised from the stacks"
                         : params > 0  ? "no preset of this family within 1 % of the parameter count"
                                       : "no parameters in the trace to match a preset's count (the family from " + facts.familyFile + ")";
        double bestRatio = 1e300;
        for (const ModelShape &p : modelPresets()) {
            const double r = params > 0 ? std::abs(std::log(double(parameterCount(p)) / params)) : 0;
            if (facts.family && p.family == *facts.family && r < bestRatio) {
                bestRatio = r;
                shape = &p;
            }
        }
        out.shapeFromTemplate = shape != nullptr;
    }
    if (out.shapeFromTemplate && !shape->isImage() && params > 0) {
        const uint64_t largest = m.allParamSizes.empty() ? 0 : *std::max_element(m.allParamSizes.begin(), m.allParamSizes.end());
        shape = &(measuredShape = shapeAsInferred(*shape, params, largest, width));
    }
    return shape;
}

// Tokens per micro-batch: the loss works on batch × sequence × vocabulary fp32 logits; images:
// the batch from the input images' size.
void inferTokens(InferredSetup &out, const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, TracePoint at,
                 const ModelShape *shape, bool fromPreset)
{
    out.optimizerStack = stacksWithFrame(snapshot, [&](const Frame &f) { return contains(snapshot.strings.at(f.file), "torch/optim/"); });
    auto maybeLogits = [&](AllocationId id) { return out.mayBeLogits(categories.of(id), index.detail(id).stack); };
    if (shape && !shape->isImage() && shape->vocab > 0) {
        const uint64_t unit = uint64_t(shape->vocab) * 4;
        auto tokens = largestQuotient(index, index.liveAt(at), maybeLogits, unit, 1u << 24);
        if (!tokens)
            tokens = largestQuotient(index, allAllocations(index), maybeLogits, unit, 1u << 24);
        if (tokens)
            out.tokens = {*tokens, "fp32 logits of " + std::to_string(*tokens) + " × " + std::to_string(shape->vocab) + " (" + shape->name + "'s vocabulary)",
                          fromPreset ? Confidence::Medium : Confidence::Low};
        else
            out.tokens = {std::nullopt, "no allocation the size of fp32 logits over " + shape->name + "'s vocabulary", Confidence::Low};
    } else if (shape && shape->isImage()) {
        // A model cast to 16 bits takes 16-bit images; autocast and fp32 models take fp32 ones.
        const bool half = out.paramDtype.value == Precision::Bf16 && !out.autocast.value.value_or(false);
        const uint64_t unit = uint64_t(3) * shape->imageSize * shape->imageSize * (half ? 2 : 4);
        if (auto batch = commonQuotient(index, allAllocations(index), unit, 1u << 16))
            out.batch = {*batch, "input images of 3 × " + std::to_string(shape->imageSize) + (half ? "² bf16" : "² fp32")};
    } else {
        out.tokens = {std::nullopt, "no model shape to find the logits by", Confidence::Low};
    }
}

// Checkpointing, sharding and the GPU count, from the frames and the caller.
void inferRun(InferredSetup &out, const FrameFacts &facts, const Inferred<int> &gpus)
{
    if (!facts.python) {
        out.checkpointing = {std::nullopt, "no Python frames recorded", Confidence::Low};
        out.parallelism = {Parallelism{}, "no Python frames recorded: assumed one GPU without sharding", Confidence::Low};
    } else {
        out.checkpointing = {facts.checkpoint, facts.checkpoint ? "torch/utils/checkpoint.py in the stacks" : "no torch/utils/checkpoint.py frames",
                             facts.checkpoint ? Confidence::High : Confidence::Medium};
        out.parallelism = facts.parallelism.distributed
                              ? Inferred<Parallelism>{facts.parallelism, facts.parallelismFile + " in the stacks", Confidence::High}
                              : Inferred<Parallelism>{Parallelism{}, "no NCCL, c10d, DDP, FSDP or DeepSpeed frames", Confidence::Medium};
    }
    out.gpus = gpus;
    if (!out.gpus.value) {
        out.gpus.confidence = Confidence::Low;
        out.gpus.how = facts.parallelism.distributed ? "a distributed run, of a size the file does not say (give --gpus N)"
                                                     : "not in the file (give --gpus N)";
    }
}

// Without any stack nothing above was measured: each finding says so rather than guess why.
void sayNotRecorded(InferredSetup &out)
{
    auto say = [](auto &field) {
        if (!field.value)
            field.how = std::string(kNotRecordedNoStacks);
    };
    say(out.params);
    say(out.trainableParams);
    say(out.paramDtype);
    say(out.preset);
    say(out.checkpointing);
    if (!out.tokens.how.empty())
        say(out.tokens);
}

} // namespace

InferredSetup inferSetup(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, TracePoint at,
                         const Inferred<int> &gpus)
{
    InferredSetup out;
    const FrameFacts facts = frameFacts(snapshot);
    out.family = facts.family;
    const Measured m = measure(index, categories, at);
    const std::optional<OperatorPrecision> ops = precisionFromOperators(snapshot.facts.operatorDtypes);
    out.autocast = inferAutocast(facts, index, categories, m, ops);
    out.fp16 = ops && ops->fp16;
    const std::optional<WeightWidth> width = m.paramBytes > 0 ? weightWidthFromShapes(m.allParamSizes) : std::nullopt;
    double bytesPerParam = 4;
    const ModelShape *preset = inferWeights(out, facts, m, width, ops, bytesPerParam);
    // The count before LoRA's adapters are counted once (inferTrainable), as the rest reads it.
    const double params = out.params.value ? double(*out.params.value) : 0;
    out.optimizer = inferOptimizer(snapshot, m, params, bytesPerParam);
    inferTrainable(out, m, params, bytesPerParam);
    ModelShape measuredShape;
    const ModelShape *shape = inferShape(out, facts, preset, params, m, width, measuredShape);
    inferTokens(out, snapshot, index, categories, at, shape, preset != nullptr);
    inferRun(out, facts, gpus);
    if (!snapshot.facts.hasFrames)
        sayNotRecorded(out);
    makeEstimateInput(out, shape, params, bytesPerParam, m.allParamSizes, m.trainedSizes);
    return out;
}

} // namespace memlens
