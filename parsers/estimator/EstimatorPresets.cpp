#include "estimator/EstimatorPresets.h"

#include <algorithm>

namespace memlens {

const std::vector<ModelShape> &modelPresets()
{
    using F = ModelFamily;
    // name, family, layers, hidden, heads, kv, headDim, intermediate, vocab, positions, tied, qkvBias, extraNorms
    static const std::vector<ModelShape> presets = {
        {"gpt2-small", F::Gpt2, 12, 768, 12, 12, 0, 3072, 50257, 1024, true, true, 0},
        {"gpt2-medium", F::Gpt2, 24, 1024, 16, 16, 0, 4096, 50257, 1024, true, true, 0},
        {"gpt2-large", F::Gpt2, 36, 1280, 20, 20, 0, 5120, 50257, 1024, true, true, 0},
        {"gpt2-xl", F::Gpt2, 48, 1600, 25, 25, 0, 6400, 50257, 1024, true, true, 0},
        {"tinyllama-1.1b", F::Llama, 22, 2048, 32, 4, 0, 5632, 32000, 0, false, false, 0},
        {"llama-2-7b", F::Llama, 32, 4096, 32, 32, 0, 11008, 32000, 0, false, false, 0},
        {"llama-2-13b", F::Llama, 40, 5120, 40, 40, 0, 13824, 32000, 0, false, false, 0},
        {"llama-2-70b", F::Llama, 80, 8192, 64, 8, 0, 28672, 32000, 0, false, false, 0},
        {"llama-3-8b", F::Llama, 32, 4096, 32, 8, 0, 14336, 128256, 0, false, false, 0},
        {"llama-3-70b", F::Llama, 80, 8192, 64, 8, 0, 28672, 128256, 0, false, false, 0},
        {"mistral-7b", F::Llama, 32, 4096, 32, 8, 0, 14336, 32000, 0, false, false, 0},
        {"qwen2.5-7b", F::Llama, 28, 3584, 28, 4, 0, 18944, 152064, 0, false, true, 0},
        {"phi-3-mini", F::Llama, 32, 3072, 32, 32, 0, 8192, 32064, 0, false, false, 0},
        {"gemma-2-9b", F::Llama, 42, 3584, 16, 8, 256, 14336, 256000, 0, true, false, 2},
        {"bert-base", F::Bert, 12, 768, 12, 12, 0, 3072, 30522, 512, true, true, 0},
        {"vit-b-16", F::Vit, 12, 768, 12, 12, 0, 3072, 0, 0, false, true, 0},
        {"resnet50", F::ResNet50, 0, 0, 0, 0, 0, 0, 0, 0, false, false, 0},
    };
    return presets;
}

std::optional<ModelShape> findModel(const std::string &name)
{
    std::string key = name;
    if (key == "tinyllama")
        key = "tinyllama-1.1b";
    if (key == "vit_b_16")
        key = "vit-b-16";
    for (const ModelShape &m : modelPresets()) {
        if (m.name == key)
            return m;
    }
    return std::nullopt;
}

const std::vector<GpuPreset> &gpuPresets()
{
    constexpr uint64_t GiB = 1ull << 30;
    static const std::vector<GpuPreset> presets = {
        {"a100-40", 40 * GiB},   {"a100-80", 80 * GiB},    {"h100-80", 85'017'493'504}, {"h100-pcie-80", 85'017'493'504},
        {"h200-141", 141 * GiB}, {"l4", 24 * GiB},         {"l40s", 48 * GiB},          {"rtx-3090", 24 * GiB},
        {"rtx-4090", 24 * GiB},  {"rtx-5090", 32 * GiB},   {"t4", 16 * GiB},            {"v100-16", 16 * GiB},
        {"v100-32", 32 * GiB},   {"mi300x", 192 * GiB},    {"apple-m-max-128", 128 * GiB},
    };
    return presets;
}

std::optional<GpuPreset> findGpu(const std::string &name)
{
    for (const GpuPreset &g : gpuPresets()) {
        if (g.name == name)
            return g;
    }
    return std::nullopt;
}

namespace {

uint64_t resnet50Parameters()
{
    // conv (no bias) + batch norm (weight, bias) per conv, fc with bias.
    uint64_t p = 3 * 64 * 7 * 7 + 2 * 64;
    int in = 64;
    for (auto [blocks, width] : {std::pair{3, 64}, std::pair{4, 128}, std::pair{6, 256}, std::pair{3, 512}}) {
        for (int b = 0; b < blocks; ++b) {
            const int out = width * 4;
            p += uint64_t(in) * width + 2 * width;         // 1x1
            p += uint64_t(width) * width * 9 + 2 * width;  // 3x3
            p += uint64_t(width) * out + 2 * out;          // 1x1
            if (b == 0)
                p += uint64_t(in) * out + 2 * out;         // downsample
            in = out;
        }
    }
    return p + uint64_t(2048) * 1000 + 1000;
}

} // namespace

uint64_t attentionParameters(const ModelShape &m)
{
    const uint64_t h = m.hidden, q = uint64_t(m.heads) * m.dHead(), kv = uint64_t(m.kvHeads) * m.dHead();
    uint64_t perLayer = h * (q + 2 * kv) + q * h;
    if (m.qkvBias)
        perLayer += q + 2 * kv + (m.family == ModelFamily::Llama ? 0 : h);
    return perLayer * m.layers;
}

uint64_t linearParameters(const ModelShape &m)
{
    const uint64_t h = m.hidden, i = m.intermediate;
    uint64_t mlp = m.family == ModelFamily::Llama ? 3 * h * i : 2 * h * i + (m.qkvBias ? i + h : 0);
    return attentionParameters(m) + mlp * m.layers;
}

uint64_t parameterCount(const ModelShape &m)
{
    const uint64_t h = m.hidden, V = m.vocab, L = m.layers;
    switch (m.family) {
    case ModelFamily::ResNet50:
        return resnet50Parameters();
    case ModelFamily::Gpt2:
        // wte, wpe, per layer two LayerNorms, final LayerNorm; the head is tied to wte.
        return V * h + uint64_t(m.positions) * h + linearParameters(m) + L * 4 * h + 2 * h;
    case ModelFamily::Bert: {
        const uint64_t embeddings = V * h + uint64_t(m.positions) * h + 2 * h + 2 * h;
        const uint64_t head = h * h + h + 2 * h + V; // transform, its LayerNorm, decoder bias
        return embeddings + linearParameters(m) + L * 4 * h + head;
    }
    case ModelFamily::Vit: {
        const uint64_t patches = uint64_t(m.imageSize / m.patch) * (m.imageSize / m.patch);
        const uint64_t stem = 3ull * m.patch * m.patch * h + h + h + (patches + 1) * h;
        return stem + linearParameters(m) + L * 4 * h + 2 * h + h * m.classes + m.classes;
    }
    case ModelFamily::Llama: {
        const uint64_t norms = L * (2 + m.extraNormsPerLayer) * h + h;
        return V * h * (m.tiedEmbeddings ? 1 : 2) + linearParameters(m) + norms;
    }
    }
    return 0;
}

} // namespace memlens
