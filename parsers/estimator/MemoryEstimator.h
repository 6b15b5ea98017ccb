#pragma once
// Predicts what torch.cuda.max_memory_allocated() reports for a model and a training or
// inference setup, from the tensors PyTorch keeps alive, phase by phase (end of forward and
// the loss, the recomputation of a checkpointed layer, the optimizer step, generation); the
// peak is the largest phase. See shared/ESTIMATOR.md.
#include "estimator/EstimatorPresets.h"
#include "model/EnumNames.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

enum class Precision { Fp32, AmpBf16, Bf16, Fp16Amp };
enum class Optimizer { AdamW, AdamW8bit, Sgd, Adafactor, Lion, None };
// EveryN: every checkpointEvery-th layer runs under torch.utils.checkpoint (torchtitan's layer
// activation checkpointing, selective_ac_option = N): layers N, 2N, … counted from 1.
enum class Checkpointing { None, Selective, Full, EveryN };
enum class Attention { Sdpa, Flash, Eager };
// The Linear layers LoRA adapts in each decoder layer: q, k, v and o; q and v alone (PEFT's
// default target_modules for Llama, Mistral, Qwen and GPT-NeoX); or every Linear (all-linear).
enum class LoraTargets : uint8_t { Attention, QueryValue, AllLinear };
constexpr EnumNames<LoraTargets, 3> kLoraTargetNames{
    {{{LoraTargets::Attention, "attention"}, {LoraTargets::QueryValue, "q-v"}, {LoraTargets::AllLinear, "all-linear"}}}};


struct EstimateInput {
    ModelShape model;
    bool inference = false;
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::AdamW;
    bool fusedOptimizer = false; // fused/foreach=False steps need no parameter-sized temporaries
    int batch = 1;
    int seq = 512;         // tokens per sample (text) or image side in pixels (image models)
    int newTokens = 0;     // inference: tokens generated after the prompt
    int gradAccumulation = 1;
    Checkpointing checkpointing = Checkpointing::None;
    int checkpointEvery = 0; // Checkpointing::EveryN's N
    Attention attention = Attention::Sdpa;
    bool fusedNorm = false; // RMSNorm as one op (torch.nn.RMSNorm, torchtitan) instead of transformers' Python ops
    int loraRank = 0;
    double loraDropout = 0; // lora_dropout: above 0 each adapter keeps a dropped copy and a mask
    LoraTargets loraTargets = LoraTargets::Attention;
    bool qlora = false;
    int zeroStage = 0; // 0–3 (3 = FSDP full sharding)
    int gpus = 1;
    bool offloadOptimizer = false;
    uint64_t gpuBytes = 0; // 0: no GPU chosen
    bool operator==(const EstimateInput &) const = default;
};

// Σ (d_in + d_out) over the Linear layers `targets` adapts in one decoder layer: each adapter
// holds rank × that many parameters (lora_A r × d_in, lora_B d_out × r).
double loraWidthPerRank(const ModelShape &m, LoraTargets targets);

// The estimate's phases of a step, in the order of their names (ties for the peak go to the
// later one, as they always have).
// FirstForwardLoss: the first iteration's, before any optimizer step made state or gradients.
enum class EstimatePhase : uint8_t { Decode, FirstForwardLoss, ForwardLoss, OptimizerStep, Prefill, Recompute };
std::string_view estimatePhaseName(EstimatePhase phase); // "decode", "first forward+loss", "forward+loss", …

// What is alive at the peak phase, for the breakdown bar: one owner for the parts and their bytes.
enum class EstimatePart : uint8_t { Weights, Optimizer, AutocastCopies, Gradients, StepTemporaries, KvCache, Transient, Activations, LogitsAndLoss };
struct EstimatePartBytes {
    EstimatePart part;
    double bytes; // may be 0
};

struct EstimateResult {
    uint64_t params = 0;
    uint64_t trainableParams = 0;
    uint64_t parametersBytes = 0;
    uint64_t gradientsBytes = 0;
    uint64_t optimizerBytes = 0;
    uint64_t masterWeightsBytes = 0; // autocast's bf16 weight copies
    uint64_t activationsBytes = 0;
    uint64_t logitsBytes = 0;   // logits and loss transients at their peak
    uint64_t transientBytes = 0; // optimizer-step or recomputation temporaries of the peak phase
    uint64_t kvCacheBytes = 0;
    uint64_t gatheredBytes = 0;  // FSDP (--zero 3): unsharded units alive at the loss (the output head's)
    uint64_t workspaceBytes = 0; // cuBLAS's workspace, allocated by the first matmul and kept
    uint64_t peakAllocatedBytes = 0;
    uint64_t reservedBytes = 0;
    uint64_t contextBytes = 0;
    EstimatePhase peakPhase = EstimatePhase::ForwardLoss;
    std::map<EstimatePhase, uint64_t> phases; // phase → allocated bytes
    std::vector<EstimatePartBytes> peakParts; // alive at the peak phase, in drawing order
    std::map<std::string, int64_t> savings;  // technique not in use → bytes it would save at the peak
    bool fits = true;                        // total (reserved + context) within the GPU
};

// The estimate with `savings`: what each technique not yet in use would save.
EstimateResult estimate(const EstimateInput &input);
// The same without `savings`, for searches that need only the peak and the fit.
EstimateResult estimateWithoutSavings(const EstimateInput &input);

// Largest batch (or sequence length) that fits `input.gpuBytes`; 0 when even 1 does not.
int largestBatch(EstimateInput input);
int longestSequence(EstimateInput input);

std::string precisionName(Precision p);
std::string optimizerName(Optimizer o);
std::string checkpointingName(const EstimateInput &in); // "none", "full", "every:2", …
std::string attentionName(Attention a);
bool parsePrecision(const std::string &s, Precision &out);
bool parseOptimizer(const std::string &s, Optimizer &out);
bool parseCheckpointing(const std::string &s, EstimateInput &in); // sets checkpointing and checkpointEvery
bool parseAttention(const std::string &s, Attention &out);

} // namespace memlens
