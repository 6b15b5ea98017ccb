#include "estimator/MemoryEstimator.h"

#include "estimator/Techniques.h"
#include "model/EnumNames.h"

#include <algorithm>
#include <cmath>

namespace memlens {

namespace {

constexpr uint64_t MiB = 1ull << 20;

struct Policy {
    double weight;    // bytes per parameter as stored
    double compute;   // bytes per element of matmul outputs (autocast: bf16/fp16)
    double residual;  // bytes per element of the residual stream (follows the weights)
    bool autocast;
};

Policy policyOf(Precision p)
{
    switch (p) {
    case Precision::Fp32: return {4, 4, 4, false};
    case Precision::AmpBf16: return {4, 2, 4, true};
    case Precision::Fp16Amp: return {4, 2, 4, true};
    case Precision::Bf16: return {2, 2, 2, false};
    }
    return {4, 4, 4, false};
}

// ResNet-50's saved activations per image at `side` pixels, in elements: each conv output is
// kept twice (batch norm's input and the in-place ReLU's output, or the residual sum), the
// downsample branch once, plus the stem and the max-pool output.
double resnet50ActivationElements(int side)
{
    double s = side / 2.0;
    double total = 2 * 64 * s * s; // stem conv + bn/relu
    s /= 2;
    total += 64 * s * s; // max-pool output
    for (auto [blocks, width, stride] : {std::tuple{3, 64, 1}, std::tuple{4, 128, 2}, std::tuple{6, 256, 2}, std::tuple{3, 512, 2}}) {
        for (int b = 0; b < blocks; ++b) {
            const double s2 = s / (b == 0 ? stride : 1);
            total += 2 * (width * s * s + width * s2 * s2 + 4.0 * width * s2 * s2);
            if (b == 0)
                total += 4.0 * width * s2 * s2;
            s = s2;
        }
    }
    return total;
}

// What scaled_dot_product_attention keeps per token. Flash and memory-efficient attention keep
// q, k, v, the output and a logsumexp; neither runs fp32 with fewer KV heads than query heads
// (flash needs 16-bit inputs, the efficient kernel has no grouped-query support), so torch falls
// back to its math path: it scales q, repeats k and v to every head and keeps the softmax
// output, heads × sequence per token.
double sdpaSavedPerToken(const ModelShape &m, const Policy &p, const EstimateInput &in, int seqLen)
{
    const double kvd = double(m.kvHeads) * m.dHead(), q = double(m.heads) * m.dHead(), cd = p.compute;
    const bool math = in.attention == Attention::Sdpa && !p.autocast && p.compute == 4 && m.kvHeads < m.heads;
    if (math)
        return 3 * q * cd + double(m.heads) * seqLen * cd;
    return (2 * q + 2 * kvd) * cd + 4.0 * m.heads;
}

// What PEFT's LoRA adapters on a Llama layer keep per token. PEFT upcasts bf16/fp16 adapters to
// fp32 (autocast_adapter_dtype) and casts each input to the adapter's dtype, so every adapter
// keeps its own copy unless the input already has that dtype; under autocast each adapter's
// Linear keeps its own bf16 cast. With dropout, each keeps the dropped copy and its mask
// instead. lora_B keeps lora_A's r-wide output.
double llamaAdapterBytes(const ModelShape &m, const Policy &p, const EstimateInput &in)
{
    const double h = m.hidden, q = double(m.heads) * m.dHead(), I = m.intermediate, r = std::max(1, in.loraRank);
    const double adapter = p.autocast ? p.compute : 4;
    const double input = p.autocast ? 4 : p.residual;
    struct Group {
        double width;
        int targets;
    };
    // q, k, v share the norm output; o_proj its own input (q and v alone: one shared input).
    std::vector<Group> groups = in.loraTargets == LoraTargets::QueryValue ? std::vector<Group>{{h, 2}} : std::vector<Group>{{h, 3}, {q, 1}};
    if (in.loraTargets == LoraTargets::AllLinear)
        groups.insert(groups.end(), {{h, 2}, {I, 1}}); // gate and up share one; down_proj
    double bytes = 0;
    for (const Group &g : groups) {
        if (in.loraDropout > 0)
            bytes += g.targets * g.width * (adapter + 1);
        else if (adapter != input)
            bytes += g.targets * g.width * adapter;
        else
            bytes += g.width * adapter;
        bytes += g.targets * r * adapter;
    }
    return bytes;
}

// Bytes one transformer layer keeps for backward, per token. Derived from the tensors each
// module saves (see ESTIMATOR.md and the comments per family), not fitted to measurements.
double layerBytesPerToken(const ModelShape &m, const Policy &p, const EstimateInput &in, bool lora, int seqLen)
{
    const double h = m.hidden, I = m.intermediate, q = double(m.heads) * m.dHead();
    const double cd = p.compute, rb = p.residual;
    double attention = 0, mlp = 0, norms = 0;
    const double eager = in.attention == Attention::Eager ? double(m.heads) * seqLen * (2 * cd + 1) : 0;
    switch (m.family) {
    case ModelFamily::Gpt2: {
        // ln_1/ln_2 inputs, the matmul inputs (autocast: bf16 casts), fused qkv, SDPA output and
        // its contiguous copy, two dropout masks; the MLP's tanh-GELU written in Python ops saves
        // c_fc's output, tanh, 1+tanh, 0.5·x and its result (autocast runs pow in fp32).
        norms = 2 * h * rb + 2 * h * cd;
        attention = 3 * h * cd + 2 * h * cd + 2 * h + eager;
        mlp = p.autocast ? 3 * 4 * h * 4 + 2 * 4 * h * cd : 20 * h * cd;
        break;
    }
    case ModelFamily::Bert: {
        // Post-LN: q/k/v input, SDPA's q, k, v and output, the merged copy, dropout masks, two
        // LayerNorm inputs, the intermediate's input, GELU's input and output.
        norms = 2 * h * rb + h * cd;
        attention = h * cd + 4 * h * cd + h * cd + h;
        mlp = 2 * 4 * h * cd + h;
        break;
    }
    case ModelFamily::Vit: {
        norms = 2 * h * rb + 2 * h * cd;
        attention = 3 * h * cd + 2 * h * cd + eager;
        mlp = 2 * 4 * h * cd;
        break;
    }
    case ModelFamily::Llama: {
        // RMSNorm computes in fp32: pow and the multiply keep its fp32 input (a copy unless the
        // stream is fp32 already); a trainable weight also keeps the normalised value. A fused
        // one (torch's F.rms_norm, torchtitan's) keeps its input and one fp32 scale per token.
        const double perNorm = in.fusedNorm ? h * rb + 4 : 4 * h + (lora ? 0 : h * rb);
        norms = (2 + m.extraNormsPerLayer) * perNorm;
        // The projections' inputs: a trainable Linear keeps its input (under autocast its own
        // bf16 cast); a frozen LoRA base keeps nothing, its adapter keeps what llamaAdapterBytes says.
        if (!lora)
            norms += p.autocast ? 5 * h * cd : 2 * h * rb; // q, k, v (gate, up) share a norm output
        // RoPE'd q and k, v and the attention output, o_proj's input (when its base trains).
        attention = sdpaSavedPerToken(m, p, in, seqLen) + (lora ? 0 : q * cd) + eager;
        // SwiGLU keeps SiLU's input and output and up's output; down_proj's input only when trained.
        mlp = (lora ? 3 : 4) * I * cd;
        if (lora)
            attention += llamaAdapterBytes(m, p, in);
        break;
    }
    case ModelFamily::ResNet50:
        break;
    }
    if (in.checkpointing == Checkpointing::Selective)
        attention = 0; // recomputed in backward
    return norms + attention + mlp;
}

int checkpointedLayers(const EstimateInput &in)
{
    if (in.checkpointing == Checkpointing::Full)
        return in.model.layers;
    if (in.checkpointing == Checkpointing::EveryN && in.checkpointEvery > 0)
        return in.model.layers / in.checkpointEvery;
    return 0;
}

double adafactorStateElements(const ModelShape &m)
{
    // Factored second moments: rows + columns of every matrix; vectors keep a full one.
    const double h = m.hidden, I = m.intermediate, kvd = double(m.kvHeads) * m.dHead(), q = double(m.heads) * m.dHead();
    double perLayer = (q + h) + 2 * (kvd + h) + (h + q);
    perLayer += m.family == ModelFamily::Llama ? 3 * (h + I) : 2 * (h + I);
    perLayer += 4 * h; // norms / biases
    return perLayer * m.layers + (m.vocab + h) * (m.tiedEmbeddings ? 1 : 2);
}

} // namespace

std::string_view estimatePhaseName(EstimatePhase phase)
{
    static constexpr EnumNames<EstimatePhase, 6> kNames{{{{EstimatePhase::Decode, "decode"},
                                                          {EstimatePhase::FirstForwardLoss, "first forward+loss"},
                                                          {EstimatePhase::ForwardLoss, "forward+loss"},
                                                          {EstimatePhase::OptimizerStep, "optimizer step"},
                                                          {EstimatePhase::Prefill, "prefill"},
                                                          {EstimatePhase::Recompute, "recompute"}}}};
    return kNames.name(phase);
}

namespace {

// Parameters, gradients and optimizer states, sharded as ZeRO shards them.
struct ModelState {
    double weights = 0;        // bytes, after sharding
    double gradients = 0;      // bytes, after sharding
    double states = 0;         // bytes, after sharding and offload
    double trainableBytes = 0; // per trainable value
    uint64_t trainable = 0;
};

ModelState modelState(const EstimateInput &in, const Policy &p, EstimateResult &r)
{
    const ModelShape &m = in.model;
    const int n = std::max(1, in.gpus);
    ModelState st;
    r.params = parameterCount(m);
    const bool lora = in.loraRank > 0 || in.qlora;
    const int rank = in.loraRank > 0 ? in.loraRank : 16;
    // PEFT keeps adapters in fp32 even on a bf16 model (autocast_adapter_dtype), and with them
    // their gradients and optimizer states. FSDP2 in bf16 is its mixed precision
    // (MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32), torchtitan's default): the
    // shards, their gradients and the optimizer state stay fp32; bf16 is what units are gathered in.
    const bool fsdpMixed = in.zeroStage >= 3 && in.precision == Precision::Bf16 && !lora;
    st.trainableBytes = lora || fsdpMixed ? 4.0 : p.weight;
    st.weights = double(r.params) * (fsdpMixed ? 4.0 : p.weight);
    st.trainable = r.params;
    if (lora) {
        st.trainable = static_cast<uint64_t>(rank * loraWidthPerRank(m, in.loraTargets) * m.layers);
        st.weights += double(st.trainable) * st.trainableBytes;
        // Loading in 4 bit quantises every decoder Linear, whatever LoRA targets (transformers
        // skips only the output layer): NF4 with its block scales is 0.516 bytes per value.
        if (in.qlora)
            st.weights -= double(linearParameters(m)) * (p.weight - 0.516);
    }
    r.trainableParams = st.trainable;
    if (in.zeroStage >= 3)
        st.weights /= n;
    r.parametersBytes = static_cast<uint64_t>(st.weights);
    st.gradients = in.inference ? 0 : double(st.trainable) * st.trainableBytes;
    if (in.zeroStage >= 2)
        st.gradients /= n;
    if (!in.inference) {
        const double t = double(st.trainable);
        switch (in.optimizer) {
        case Optimizer::AdamW: st.states = 2.0 * st.trainableBytes * t; break;
        case Optimizer::AdamW8bit: st.states = 2.03 * t; break;
        case Optimizer::Sgd: st.states = st.trainableBytes * t; break;
        case Optimizer::Lion: st.states = st.trainableBytes * t; break;
        case Optimizer::Adafactor: st.states = st.trainableBytes * (lora ? 2.0 * t / std::max(1, rank) : adafactorStateElements(m)); break;
        case Optimizer::None: st.states = 0; break;
        }
        if (in.zeroStage >= 1)
            st.states /= n;
        if (in.offloadOptimizer)
            st.states = 0;
    }
    r.gradientsBytes = static_cast<uint64_t>(st.gradients);
    r.optimizerBytes = static_cast<uint64_t>(st.states);
    return st;
}

// Autocast keeps a low-precision copy of each weight it casts (the Linear/conv weights and a
// tied head) for as long as backward needs it.
void autocastCopies(const EstimateInput &in, const Policy &p, EstimateResult &r)
{
    const ModelShape &m = in.model;
    if (!p.autocast || in.inference)
        return;
    double cast = double(linearParameters(m)) + (m.family == ModelFamily::Gpt2 || m.family == ModelFamily::Bert ? double(m.vocab) * m.hidden : 0);
    if (m.family == ModelFamily::ResNet50)
        cast = double(r.params);
    if (m.family == ModelFamily::Llama)
        cast += double(m.vocab) * m.hidden;
    r.masterWeightsBytes = static_cast<uint64_t>(cast * 2 / (in.zeroStage >= 3 ? std::max(1, in.gpus) : 1));
}

// Prefill of the prompt: weights, the KV cache so far, one layer's transient tensors; then
// decoding grows the cache to prompt + new tokens.
void inferencePhases(const EstimateInput &in, const Policy &p, const ModelState &st, EstimateResult &r)
{
    const ModelShape &m = in.model;
    const double b = std::max(1, in.batch), V = m.vocab;
    const int seq = std::max(1, in.seq);
    const double kvd = double(m.kvHeads) * m.dHead();
    const double kvPrompt = 2.0 * m.layers * b * seq * kvd * p.compute;
    const double kvFull = 2.0 * m.layers * b * (seq + in.newTokens) * kvd * p.compute;
    const double mlpTransient = (m.family == ModelFamily::Llama ? 3.0 * m.intermediate : 4.0 * 4 * m.hidden) * p.compute;
    const double prefill = st.weights + kvPrompt + b * seq * (mlpTransient + 2.0 * m.hidden * p.compute) + b * V * 4;
    const double decode = st.weights + kvFull + kvFull / m.layers + b * V * 4;
    r.kvCacheBytes = static_cast<uint64_t>(kvFull);
    r.activationsBytes = static_cast<uint64_t>(b * seq * (mlpTransient + 2.0 * m.hidden * p.compute));
    r.logitsBytes = static_cast<uint64_t>(b * V * 4);
    r.phases[EstimatePhase::Prefill] = static_cast<uint64_t>(prefill);
    r.phases[EstimatePhase::Decode] = static_cast<uint64_t>(decode);
}

// Forward and loss, the optimizer step, and the recompute of a checkpointed layer.
void trainingPhases(const EstimateInput &in, const Policy &p, const ModelState &st, EstimateResult &r)
{
    const ModelShape &m = in.model;
    const double b = std::max(1, in.batch), V = m.vocab;
    const int seq = std::max(1, in.seq);
    const bool lora = in.loraRank > 0 || in.qlora;
    const double tokens = m.isImage() ? b * (m.family == ModelFamily::Vit ? double((seq / m.patch) * (seq / m.patch) + 1) : 1) : b * seq;
    double activations = 0, layer = 0, logits = 0;
    if (m.family == ModelFamily::ResNet50) {
        const double perImage = resnet50ActivationElements(seq) * p.compute + 64.0 * (seq / 4.0) * (seq / 4.0) * 8 /* max-pool indices */ +
                                3.0 * seq * seq * p.compute;
        activations = b * perImage;
        layer = activations / 16; // the largest stage's gradients during backward
    } else {
        layer = tokens * layerBytesPerToken(m, p, in, lora, seq);
        const double head = tokens * m.hidden * (p.residual * 2 + p.compute * 2 + 1);
        // A checkpointed layer keeps only its input; every N-th one counts layers N, 2N, … from 1.
        const int checkpointed = checkpointedLayers(in);
        activations = (m.layers - checkpointed) * layer + checkpointed * tokens * m.hidden * p.residual + head;
        // FSDP frees each unit's gathered weights after its forward, except the last unit's (the
        // output head: reshard_after_forward=False), which the loss still uses.
        if (in.zeroStage >= 3 && m.vocab)
            r.gatheredBytes = static_cast<uint64_t>(double(m.vocab) * m.hidden * p.compute);
        // Causal-LM / MLM loss: torch's cross_entropy in fp32; at the start of backward the
        // log-softmax output, the gradient of the loss and that of the log-softmax are alive.
        if (m.family == ModelFamily::Gpt2 || m.family == ModelFamily::Llama || m.family == ModelFamily::Bert)
            logits = 3.0 * tokens * V * 4;
    }
    r.activationsBytes = static_cast<uint64_t>(activations);
    r.logitsBytes = static_cast<uint64_t>(logits);
    const double base = st.weights + st.states + double(r.masterWeightsBytes) + double(r.gatheredBytes);
    const double accumulated = in.gradAccumulation > 1 ? st.gradients : 0;
    r.phases[EstimatePhase::ForwardLoss] = static_cast<uint64_t>(base + accumulated + activations + logits);
    // The first iteration: no optimizer step has made state or gradients yet (a run that fits
    // later steps may still fail here, and one that fails here shows no optimizer state).
    r.phases[EstimatePhase::FirstForwardLoss] = static_cast<uint64_t>(base - st.states + activations + logits);
    // The optimizer step: foreach AdamW allocates one parameter-sized temporary (the square
    // root of exp_avg_sq); SGD with momentum and no weight decay works in place, and 8-bit
    // Adam runs fused kernels.
    const bool inPlace = in.fusedOptimizer || in.optimizer == Optimizer::None || in.optimizer == Optimizer::Sgd ||
                         in.optimizer == Optimizer::AdamW8bit;
    // Sharded optimizer state (ZeRO-1 and up, FSDP) steps each rank's shard only.
    const double stepTemp = inPlace ? 0 : double(st.trainable) * st.trainableBytes / (in.zeroStage >= 1 ? std::max(1, in.gpus) : 1);
    r.phases[EstimatePhase::OptimizerStep] = static_cast<uint64_t>(st.weights + st.states + st.gradients + stepTemp);
    if (checkpointedLayers(in) > 0)
        r.phases[EstimatePhase::Recompute] = static_cast<uint64_t>(base + st.gradients + activations + layer * 1.5);
    r.transientBytes = static_cast<uint64_t>(stepTemp);
}

// The peak over the phases (with cuBLAS's workspace), what it is made of, and what the caching
// allocator and the CUDA context add.
void peakAndParts(const EstimateInput &in, EstimateResult &r)
{
    // cuBLAS keeps one workspace per stream through the caching allocator (32 MiB on Hopper).
    r.workspaceBytes = 32 * MiB;
    for (auto &[phase, bytes] : r.phases)
        bytes += r.workspaceBytes;
    for (const auto &[phase, bytes] : r.phases) {
        if (bytes >= r.peakAllocatedBytes) {
            r.peakAllocatedBytes = bytes;
            r.peakPhase = phase;
        }
    }
    // FSDP's gathered head is weights too, alive in the forward and loss phases.
    const double gathered = r.peakPhase == EstimatePhase::OptimizerStep || in.inference ? 0 : double(r.gatheredBytes);
    r.peakParts = {{EstimatePart::Weights, double(r.parametersBytes) + gathered},
                   {EstimatePart::Optimizer, double(r.optimizerBytes)},
                   {EstimatePart::AutocastCopies, double(r.masterWeightsBytes)}};
    if (r.peakPhase == EstimatePhase::OptimizerStep) {
        r.peakParts.push_back({EstimatePart::Gradients, double(r.gradientsBytes)});
        r.peakParts.push_back({EstimatePart::StepTemporaries, double(r.transientBytes)});
    } else if (in.inference) {
        r.peakParts.push_back({EstimatePart::KvCache, double(r.kvCacheBytes)});
        r.peakParts.push_back({EstimatePart::Transient, double(r.peakAllocatedBytes) - double(r.parametersBytes + r.kvCacheBytes)});
    } else {
        const double other = double(r.peakAllocatedBytes) - double(r.parametersBytes + r.optimizerBytes + r.masterWeightsBytes + r.logitsBytes) - gathered;
        r.peakParts.push_back({EstimatePart::Activations, std::max(0.0, other)});
        r.peakParts.push_back({EstimatePart::LogitsAndLoss, double(r.logitsBytes)});
    }
    // The caching allocator's slack: rounding, 2/20 MiB segments, fragmentation.
    r.reservedBytes = static_cast<uint64_t>(double(r.peakAllocatedBytes) * 1.08) + 20 * MiB;
    r.contextBytes = 240 * MiB + (std::max(1, in.gpus) > 1 ? 600 * MiB : 0);
    if (in.gpuBytes)
        r.fits = r.reservedBytes + r.contextBytes <= in.gpuBytes;
}

} // namespace

EstimateResult estimateWithoutSavings(const EstimateInput &in)
{
    EstimateResult r;
    const Policy p = policyOf(in.precision);
    const ModelState st = modelState(in, p, r);
    autocastCopies(in, p, r);
    if (in.inference)
        inferencePhases(in, p, st, r);
    else
        trainingPhases(in, p, st, r);
    peakAndParts(in, r);
    return r;
}

EstimateResult estimate(const EstimateInput &in)
{
    EstimateResult r = estimateWithoutSavings(in);
    // What each technique not yet in use would save at the peak: one estimate each, and
    // none of those computes what-ifs of its own.
    if (!in.inference) {
        for (const Technique &t : techniques()) {
            if (t.shards || !t.applies(in))
                continue;
            EstimateInput alt = in;
            t.apply(alt);
            alt.gpuBytes = 0;
            r.savings[std::string(t.name)] = int64_t(r.peakAllocatedBytes) - int64_t(estimateWithoutSavings(alt).peakAllocatedBytes);
        }
    }
    return r;
}

namespace {
template <typename Set>
int largest(EstimateInput in, Set set)
{
    auto fits = [&](int v) {
        set(in, v);
        return estimateWithoutSavings(in).fits;
    };
    if (!in.gpuBytes || !fits(1))
        return 0;
    int lo = 1, hi = 2;
    while (hi < (1 << 20) && fits(hi))
        lo = hi, hi *= 2;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}
} // namespace

int largestBatch(EstimateInput input)
{
    return largest(input, [](EstimateInput &in, int v) { in.batch = v; });
}

int longestSequence(EstimateInput input)
{
    return largest(input, [](EstimateInput &in, int v) { in.seq = v; });
}

double loraWidthPerRank(const ModelShape &m, LoraTargets targets)
{
    const double h = m.hidden, q = double(m.heads) * m.dHead(), kvd = double(m.kvHeads) * m.dHead(), I = m.intermediate;
    if (targets == LoraTargets::QueryValue)
        return (h + q) + (h + kvd);
    double dims = (h + q) + 2 * (h + kvd) + (q + h);
    if (targets == LoraTargets::AllLinear)
        dims += (m.family == ModelFamily::Llama ? 3 : 2) * (h + I);
    return dims;
}

} // namespace memlens
