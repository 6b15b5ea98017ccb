#pragma once
// Model and GPU presets for the memory estimator, with exact shapes from the models' configs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

enum class ModelFamily {
    Gpt2,  // HF GPT2LMHeadModel: LayerNorm, tanh-GELU in Python ops, dropout 0.1, tied head
    Llama, // HF Llama-style decoders: RMSNorm, SwiGLU, RoPE, GQA, no dropout
    Bert,  // HF BertForMaskedLM: LayerNorm, erf-GELU, dropout 0.1, tied MLM decoder
    Vit,   // torchvision ViT: LayerNorm, GELU, no dropout, class-token head
    ResNet50,
};

struct ModelShape {
    std::string name;
    ModelFamily family = ModelFamily::Llama;
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0; // 0: hidden / heads
    int intermediate = 0;
    int vocab = 0;
    int positions = 0; // learned position embeddings (GPT-2, BERT)
    bool tiedEmbeddings = false;
    bool qkvBias = false;
    int extraNormsPerLayer = 0; // Gemma-2's pre/post feed-forward norms
    int imageSize = 224;        // image models
    int patch = 16;
    int classes = 1000;

    bool operator==(const ModelShape &) const = default;
    int dHead() const { return headDim ? headDim : heads ? hidden / heads : 0; }
    bool isImage() const { return family == ModelFamily::Vit || family == ModelFamily::ResNet50; }
};

struct GpuPreset {
    std::string name;
    uint64_t bytes; // memory the device reports
};

const std::vector<ModelShape> &modelPresets();
std::optional<ModelShape> findModel(const std::string &name);
const std::vector<GpuPreset> &gpuPresets();
std::optional<GpuPreset> findGpu(const std::string &name);

uint64_t parameterCount(const ModelShape &m);
// Parameters inside the transformer blocks' Linear layers (what LoRA "all-linear" targets and
// autocast keeps bf16 copies of), and the attention projections alone.
uint64_t linearParameters(const ModelShape &m);
uint64_t attentionParameters(const ModelShape &m);

} // namespace memlens
