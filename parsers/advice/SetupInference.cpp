#include "advice/SetupInference.h"

#include "analysis/StackMatch.h"
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

// What the file's frames say, over every distinct frame (a handful of thousands at most).
struct FrameFacts {
    std::optional<ModelFamily> family;
    std::string familyFile;
    bool checkpoint = false;
    bool autocast = false;
    bool python = false;
};

FrameFacts frameFacts(const Snapshot &s)
{
    static const std::pair<std::string_view, ModelFamily> kFamilies[] = {
        {"models/gpt2/", ModelFamily::Gpt2},        {"models/llama/", ModelFamily::Llama},  {"models/mistral/", ModelFamily::Llama},
        {"models/qwen2/", ModelFamily::Llama},      {"models/gemma", ModelFamily::Llama},   {"models/phi3/", ModelFamily::Llama},
        {"models/bert/", ModelFamily::Bert},        {"torchvision/models/resnet.py", ModelFamily::ResNet50},
        {"torchvision/models/vision_transformer.py", ModelFamily::Vit},
    };
    FrameFacts f;
    for (size_t i = 0; i < s.frames.size(); ++i) {
        const std::string_view file = s.strings.at(s.frames.at(static_cast<uint32_t>(i)).file);
        f.python = f.python || file.ends_with(".py");
        f.checkpoint = f.checkpoint || contains(file, "torch/utils/checkpoint.py");
        f.autocast = f.autocast || contains(file, "torch/amp/autocast_mode.py");
        for (const auto &[part, family] : kFamilies) {
            if (!f.family && contains(file, part)) {
                f.family = family;
                f.familyFile = std::string(file.substr(file.find(part)));
            }
        }
    }
    return f;
}

// The optimizer whose code created the state, from its stacks' files.
std::optional<Optimizer> optimizerOfStacks(const Snapshot &s, const std::vector<uint32_t> &stacks, std::string &file)
{
    static const std::pair<std::string_view, Optimizer> kOptimizers[] = {
        {"bitsandbytes/", Optimizer::AdamW8bit}, {"torch/optim/adamw.py", Optimizer::AdamW}, {"torch/optim/adam.py", Optimizer::AdamW},
        {"torch/optim/sgd.py", Optimizer::Sgd},  {"adafactor", Optimizer::Adafactor},          {"lion", Optimizer::Lion},
    };
    for (uint32_t stack : stacks) {
        for (uint32_t id : s.stacks.at(stack)) {
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
    for (uint32_t id : ids) {
        if (!keep(id))
            continue;
        const uint64_t size = index.detail(id).size;
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
    for (uint32_t id : ids) {
        const uint64_t size = index.detail(id).size;
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
        uint32_t operator*() const { return id; }
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

} // namespace

InferredSetup inferSetup(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, uint32_t at)
{
    InferredSetup out;
    const FrameFacts facts = frameFacts(snapshot);
    out.family = facts.family;

    // Bytes per category: parameters where the advice looks, gradients and optimizer state at
    // their largest over the run (an OOM in the first step may come before either exists).
    const auto here = categories.totalsAfter(at);
    uint64_t paramBytes = here[size_t(Category::Parameter)], gradBytes = 0, stateBytes = 0;
    std::unordered_set<uint64_t> paramSizes;
    std::vector<uint32_t> stateStacks;
    std::unordered_set<uint32_t> seenStacks;
    for (uint32_t id = 0; id < index.allocationCount(); ++id) {
        const Category c = categories.of(id);
        const AllocationDetail d = index.detail(id);
        if (c == Category::Parameter && d.size >= (1u << 20))
            paramSizes.insert(d.size);
        if (c == Category::OptimizerState && seenStacks.insert(d.stack).second && stateStacks.size() < 64)
            stateStacks.push_back(d.stack);
    }
    for (uint32_t e = 0; e < index.eventCount(); e += AllocationCategories::kCheckpointEvery) {
        const auto t = categories.totalsAfter(e);
        gradBytes = std::max(gradBytes, t[size_t(Category::Gradient)]);
        stateBytes = std::max(stateBytes, t[size_t(Category::OptimizerState)]);
    }
    if (index.eventCount()) {
        const auto t = categories.totalsAfter(static_cast<uint32_t>(index.eventCount() - 1));
        gradBytes = std::max(gradBytes, t[size_t(Category::Gradient)]);
        stateBytes = std::max(stateBytes, t[size_t(Category::OptimizerState)]);
    }

    // Autocast: its decorator in the stacks, or forward-time copies of exactly half a weight's size.
    size_t halfCopies = 0;
    if (!paramSizes.empty()) {
        std::unordered_set<uint64_t> halved;
        for (uint32_t id = 0; id < index.allocationCount(); ++id) {
            const Category c = categories.of(id);
            const uint64_t size = index.detail(id).size;
            if ((c == Category::Activation || c == Category::Temporary) && paramSizes.count(size * 2))
                halved.insert(size * 2);
        }
        halfCopies = halved.size();
    }
    // autocast's __exit__ frees its cast cache, so its frames are recorded only when it cast
    // something. Half-size copies alone can be activations of a coincident shape (a run of
    // varying sequence lengths has many), so they count only when nearly every weight size has one.
    const bool halfCopyEvidence = paramSizes.size() >= 4 && halfCopies * 4 >= paramSizes.size() * 3;
    out.autocast.value = facts.autocast || halfCopyEvidence;
    out.autocast.how = (facts.autocast ? "autocast's __exit__ (torch/amp/autocast_mode.py) freed cast copies; " : "") +
                       std::to_string(halfCopies) + " of " + std::to_string(paramSizes.size()) +
                       " weight sizes have a half-size copy made during the step";

    // Parameter dtype and count: fp32 weights under autocast; otherwise the bytes per parameter
    // that make a preset's exact count, else fp32.
    const ModelShape *preset = nullptr;
    double bytesPerParam = 4;
    if (paramBytes > 0) {
        if (*out.autocast.value) {
            preset = presetOfSize(paramBytes / 4.0, facts.family);
            out.paramDtype = {Precision::Fp32, "autocast runs on fp32 weights"};
        } else if (const ModelShape *p32 = presetOfSize(paramBytes / 4.0, facts.family)) {
            preset = p32;
            out.paramDtype = {Precision::Fp32, gib(double(paramBytes)) + " of parameters is " + p32->name + "'s count at 4 bytes each"};
        } else if (const ModelShape *p16 = presetOfSize(paramBytes / 2.0, facts.family)) {
            preset = p16;
            bytesPerParam = 2;
            out.paramDtype = {Precision::Bf16, gib(double(paramBytes)) + " of parameters is " + p16->name + "'s count at 2 bytes each"};
        } else {
            out.paramDtype = {Precision::Fp32, "assumed: no preset matches the parameter bytes at 2 or 4 bytes each"};
        }
        out.params = {static_cast<uint64_t>(std::llround(paramBytes / bytesPerParam)),
                      gib(double(paramBytes)) + " alive from Module.to / parameter initialisation, at " + std::to_string(int(bytesPerParam)) +
                          " bytes each"};
    } else {
        out.params.how = "no parameter allocations in the trace (created before recording began?)";
        out.paramDtype.how = "no parameters to measure";
    }

    // The optimizer: who created the state, and its size per trainable parameter.
    std::string stateFile;
    const std::optional<Optimizer> byStack = optimizerOfStacks(snapshot, stateStacks, stateFile);
    const double params = out.params.value ? double(*out.params.value) : 0;
    const double ratio = params > 0 ? double(stateBytes) / (params * bytesPerParam) : 0;
    if (stateBytes == 0) {
        out.optimizer = gradBytes ? Inferred<Optimizer>{std::nullopt, "gradients but no optimizer state yet (stopped before the first step?)"}
                                  : Inferred<Optimizer>{Optimizer::None, "neither gradients nor optimizer state in the trace"};
    } else if (byStack) {
        out.optimizer = {byStack, "state created in " + stateFile + ", " + gib(double(stateBytes)) + " of it"};
    } else {
        const std::string r = std::to_string(ratio).substr(0, 4);
        out.optimizer = ratio > 1.5   ? Inferred<Optimizer>{Optimizer::AdamW, "state is " + r + "× the parameters (two moments)"}
                        : ratio > 0.8 ? Inferred<Optimizer>{Optimizer::Sgd, "state is " + r + "× the parameters (one momentum buffer)"}
                                      : Inferred<Optimizer>{std::nullopt, "state is " + r + "× the parameters"};
    }

    // Trainable parameters: from the state per parameter of that optimizer, else the gradients.
    // Far fewer than all (LoRA) means fp32 adapters, which PEFT upcasts even on a bf16 model.
    const std::optional<Optimizer> opt = out.optimizer.value;
    const double statePerValue = opt == Optimizer::AdamW ? 2 : opt == Optimizer::Sgd || opt == Optimizer::Lion ? 1 : 0;
    if (statePerValue > 0 && params > 0) {
        double trainable = stateBytes / (statePerValue * bytesPerParam);
        if (trainable < 0.5 * params)
            trainable = stateBytes / (statePerValue * 4);
        out.trainableParams = {static_cast<uint64_t>(std::llround(std::min(trainable, params))),
                               gib(double(stateBytes)) + " of " + optimizerName(*opt) + " state, " + std::to_string(int(statePerValue)) + " value(s) per trainable parameter"};
    } else if (gradBytes > 0 && params > 0) {
        out.trainableParams = {static_cast<uint64_t>(std::llround(std::min(gradBytes / bytesPerParam, params))),
                               "the largest gradient total, " + gib(double(gradBytes))};
    } else if (opt == Optimizer::None && params > 0) {
        out.trainableParams = {0, "nothing is trained: no gradients"};
    } else {
        out.trainableParams.how = "no optimizer state of a known layout and no gradients";
    }

    // The preset, or the family's closest one as the shape the estimator's rules work on.
    const ModelShape *shape = preset;
    if (preset) {
        out.preset = {preset->name, "parameter count within 1 % of " + preset->name + "'s"};
    } else {
        out.preset.how = facts.family ? "no preset of this family within 1 % of the parameter count" : "model family not recognised from the stacks";
        double bestRatio = 1e300;
        for (const ModelShape &m : modelPresets()) {
            const double r = params > 0 ? std::abs(std::log(double(parameterCount(m)) / params)) : 0;
            if (facts.family && m.family == *facts.family && r < bestRatio) {
                bestRatio = r;
                shape = &m;
            }
        }
        out.shapeFromTemplate = shape != nullptr;
    }

    // Tokens per micro-batch: the loss works on batch × sequence × vocabulary fp32 logits.
    out.optimizerStack = stacksWithFrame(snapshot, [&](const Frame &f) { return contains(snapshot.strings.at(f.file), "torch/optim/"); });
    auto maybeLogits = [&](uint32_t id) { return out.mayBeLogits(categories.of(id), index.detail(id).stack); };
    if (shape && !shape->isImage() && shape->vocab > 0) {
        const uint64_t unit = uint64_t(shape->vocab) * 4;
        auto tokens = largestQuotient(index, index.liveAt(at), maybeLogits, unit, 1u << 24);
        if (!tokens)
            tokens = largestQuotient(index, allAllocations(index), maybeLogits, unit, 1u << 24);
        if (tokens)
            out.tokens = {*tokens, "fp32 logits of " + std::to_string(*tokens) + " × " + std::to_string(shape->vocab) + " (" + shape->name +
                                       "'s vocabulary)"};
        else
            out.tokens.how = "no allocation the size of fp32 logits over " + shape->name + "'s vocabulary";
    } else if (shape && shape->isImage()) {
        const uint64_t unit = uint64_t(3) * shape->imageSize * shape->imageSize * 4;
        if (auto batch = commonQuotient(index, allAllocations(index), unit, 1u << 16))
            out.batch = {*batch, "input images of 3 × " + std::to_string(shape->imageSize) + "² fp32"};
    } else {
        out.tokens.how = "no model shape to find the logits by";
    }

    if (!facts.python)
        out.checkpointing.how = "no Python frames recorded";
    else
        out.checkpointing = {facts.checkpoint, facts.checkpoint ? "torch/utils/checkpoint.py in the stacks" : "no torch/utils/checkpoint.py frames"};

    // The estimator input.
    EstimateInput &in = out.input;
    if (shape) {
        in.model = *shape;
        out.hasShape = true;
    }
    in.precision = *out.autocast.value ? Precision::AmpBf16 : bytesPerParam == 2 ? Precision::Bf16 : Precision::Fp32;
    in.optimizer = opt.value_or(Optimizer::AdamW); // an unknown layout is priced as the common case
    in.inference = opt == Optimizer::None;
    in.checkpointing = out.checkpointing.value.value_or(false) ? Checkpointing::Full : Checkpointing::None;
    if (out.trainableParams.value && params > 0 && double(*out.trainableParams.value) < 0.5 * params) {
        // LoRA on the attention projections: r · (d_in + d_out) per adapted matrix.
        in.loraRank = 16;
        if (shape && !shape->isImage()) {
            const double h = shape->hidden, q = double(shape->heads) * shape->dHead(), kvd = double(shape->kvHeads) * shape->dHead();
            const double perRank = ((h + q) + 2 * (h + kvd) + (q + h)) * shape->layers;
            in.loraRank = std::max(1, static_cast<int>(std::lround(double(*out.trainableParams.value) / perRank)));
        }
    }
    if (shape && shape->isImage()) {
        in.seq = shape->imageSize;
        in.batch = static_cast<int>(out.batch.value.value_or(1));
    } else if (out.tokens.value) {
        const int positions = shape && shape->positions ? shape->positions : 2048;
        const uint64_t t = *out.tokens.value;
        in.seq = static_cast<int>(std::min<uint64_t>(t, uint64_t(positions)));
        while (in.seq > 1 && t % uint64_t(in.seq))
            --in.seq;
        in.batch = static_cast<int>(t / uint64_t(in.seq));
    }
    return out;
}

} // namespace memlens
