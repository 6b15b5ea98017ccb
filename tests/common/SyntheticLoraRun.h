#pragma once
// A run no corpus file has: a Llama-shaped model that is not one of memlens's presets
// (Llama 3.2 1B's config: hidden 2048, 16 layers, 32 heads, 8 KV heads, MLP 8192, vocabulary
// 128,256, tied embeddings) loaded in bf16, with PEFT LoRA adapters (r 16 on q_proj and
// v_proj) kept in fp32 as PEFT does, trained with AdamW for one step on 4 × 512 tokens.
// Built from the config, tensor by tensor, with the frames torch, transformers and PEFT leave.
// What it can show: the setup read from tensor sizes and frames without a preset. What it
// cannot: a real allocator's segments, or the activations a real step keeps (a few stand-ins).
#include "SyntheticSnapshot.h"

#include <cstdint>
#include <vector>

struct SyntheticRunTruth {
    uint64_t params = 0;
    uint64_t trainable = 0;
    uint64_t tokens = 0;
    uint64_t loraRank = 0;
};

inline SynthSnapshot llamaBf16LoraRun(SyntheticRunTruth &truth)
{
    const uint64_t hidden = 2048, layers = 16, kv = 512, mlp = 8192, vocab = 128256, rank = 16, tokens = 4 * 512;
    const std::string torch = "/opt/venv/lib/python3.11/site-packages/torch/", hf = "/opt/venv/lib/python3.11/site-packages/transformers/",
                      peft = "/opt/venv/lib/python3.11/site-packages/peft/";
    SynthSnapshot s;
    s.stacks = {
        {{"convert", torch + "nn/modules/module.py", 1341}, {"_apply", torch + "nn/modules/module.py", 928}, {"to", torch + "nn/modules/module.py", 1355},
         {"to", hf + "modeling_utils.py", 3164}, {"main", "/work/finetune.py", 40}},
        {{"convert", torch + "nn/modules/module.py", 1341}, {"_apply", torch + "nn/modules/module.py", 928}, {"to", torch + "nn/modules/module.py", 1355},
         {"_move_adapter_to_device_of_base_layer", peft + "tuners/tuners_utils.py", 150}, {"update_layer", peft + "tuners/lora/layer.py", 180},
         {"main", "/work/finetune.py", 44}},
        {{"forward", hf + "models/llama/modeling_llama.py", 260}, {"_call_impl", torch + "nn/modules/module.py", 1762}, {"main", "/work/finetune.py", 60}},
        {{"forward", hf + "models/llama/modeling_llama.py", 470}, {"_call_impl", torch + "nn/modules/module.py", 1762}, {"main", "/work/finetune.py", 60}},
        {{"torch::autograd::AccumulateGrad::apply", "", 0}, {"backward", torch + "_tensor.py", 647}, {"main", "/work/finetune.py", 62}},
        {{"_init_group", torch + "optim/adamw.py", 170}, {"step", torch + "optim/adamw.py", 220}, {"main", "/work/finetune.py", 64}},
    };
    enum Stack { Weight, Adapter, Forward, Logits, Grad, State };
    struct Live {
        uint64_t addr, size;
        bool freed = false;
    };
    std::vector<Live> blocks;
    std::vector<SynthEntry> trace;
    const uint64_t base = 0x7f0000000000;
    uint64_t next = base;
    int64_t t = 0;
    auto rounded = [](uint64_t size) { return (size + 511) / 512 * 512; };
    auto alloc = [&](uint64_t bytes, int stack) {
        trace.push_back({"alloc", next, bytes, ++t, 0, stack});
        blocks.push_back({next, bytes});
        next += rounded(bytes);
        return blocks.size() - 1;
    };
    auto release = [&](size_t i, int stack) {
        blocks[i].freed = true;
        trace.push_back({"free_requested", blocks[i].addr, blocks[i].size, ++t, 0, stack});
        trace.push_back({"free_completed", blocks[i].addr, blocks[i].size, ++t, 0, stack});
    };

    // bf16 weights, tied embedding and output layer.
    std::vector<uint64_t> weights = {vocab * hidden};
    for (uint64_t l = 0; l < layers; ++l) {
        for (uint64_t n : {hidden * hidden, hidden * kv, hidden * kv, hidden * hidden, hidden * mlp, hidden * mlp, mlp * hidden, hidden, hidden})
            weights.push_back(n);
    }
    weights.push_back(hidden);
    // fp32 adapters: A (r × in) and B (out × r) for q_proj (2048 → 2048) and v_proj (2048 → 512).
    std::vector<uint64_t> adapters;
    for (uint64_t l = 0; l < layers; ++l) {
        for (uint64_t n : {rank * hidden, hidden * rank, rank * hidden, kv * rank})
            adapters.push_back(n);
    }
    for (uint64_t n : weights) {
        alloc(n * 2, Weight);
        truth.params += n;
    }
    for (uint64_t n : adapters) {
        alloc(n * 4, Adapter);
        truth.params += n;
        truth.trainable += n;
    }
    truth.tokens = tokens;
    truth.loraRank = rank;
    // Forward: each layer's bf16 input kept for backward, then bf16 logits and their fp32 copy.
    std::vector<size_t> activations;
    for (uint64_t l = 0; l < layers; ++l)
        activations.push_back(alloc(tokens * hidden * 2, Forward));
    activations.push_back(alloc(tokens * vocab * 2, Logits));
    activations.push_back(alloc(tokens * vocab * 4, Logits));
    // Backward: the adapters' fp32 gradients; the activations go.
    for (uint64_t n : adapters)
        alloc(n * 4, Grad);
    for (size_t i : activations)
        release(i, Forward);
    // AdamW's two fp32 moments per adapter.
    for (uint64_t n : adapters) {
        alloc(n * 4, State);
        alloc(n * 4, State);
    }

    SynthSegment segment;
    segment.address = base;
    for (const Live &b : blocks) {
        if (b.freed && !segment.blocks.empty() && segment.blocks.back().state == "inactive")
            segment.blocks.back().size += rounded(b.size); // torch merges neighbouring free blocks
        else
            segment.blocks.push_back({rounded(b.size), b.freed ? 0 : b.size, b.freed ? "inactive" : "active_allocated", -1});
    }
    trace.insert(trace.begin(), SynthEntry{"segment_alloc", base, next - base, 0, 0, -1});
    s.segments = {segment};
    s.traces = {trace};
    return s;
}
