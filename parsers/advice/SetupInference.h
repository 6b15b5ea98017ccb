#pragma once
// The training setup a snapshot reveals: parameter count and dtype, the optimizer, tokens per
// micro-batch, the matching model preset and whether activations are checkpointed, each with
// how it was inferred. The estimator input built from them is what the advice and the
// estimator panel start from.
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "estimator/MemoryEstimator.h"
#include "model/EnumNames.h"
#include "model/IdVector.h"
#include "model/Snapshot.h"

#include <optional>
#include <string>
#include <vector>

namespace memlens {

// How sure an inferred value is: `High` when two independent kinds of evidence agree (the
// tensor shapes and a preset's count, say), `Medium` on one kind, `Low` when assumed. A low
// value is shown as a guess, and fixes priced on it say so.
enum class Confidence : uint8_t { Low, Medium, High };
constexpr EnumNames<Confidence, 3> kConfidenceNames{{{{Confidence::Low, "low"}, {Confidence::Medium, "medium"}, {Confidence::High, "high"}}}};

template <typename T>
struct Inferred {
    std::optional<T> value; // empty: could not be inferred
    std::string how;
    Confidence confidence = Confidence::Medium;
};

// Sharding in use, from the frames that run it: DDP replicates (stage 0), DeepSpeed's
// stage_1_and_2.py shards at least optimizer state (1), FSDP and ZeRO-3 everything (3).
struct Parallelism {
    bool distributed = false; // NCCL / c10d / DDP / FSDP / DeepSpeed frames
    int shardingStage = 0;
    bool operator==(const Parallelism &) const = default;
};

struct InferredSetup {
    Inferred<uint64_t> params;
    Inferred<uint64_t> trainableParams;
    Inferred<Precision> paramDtype;    // Fp32 or Bf16 (autocast is its own finding)
    Inferred<bool> autocast;           // bf16 weight copies made during forward
    bool fp16 = false;                 // the 16-bit values are fp16 (a trace's input types say so); else bf16 is assumed
    Inferred<Optimizer> optimizer;     // empty: state of no known layout, or gradients and no state yet
    Inferred<uint64_t> tokens;         // per micro-batch, language models
    Inferred<uint64_t> batch;          // image models: images per micro-batch
    Inferred<std::string> preset;      // a preset's name, or empty when none matches
    Inferred<bool> checkpointing;
    Inferred<Parallelism> parallelism;
    Inferred<int> gpus;                // --gpus or the rank files beside the snapshot; a file alone does not say
    std::optional<ModelFamily> family; // from the modules' source files in the stacks
    // The setup as estimator input; its shape is the preset, or the family's closest preset
    // (`shapeFromTemplate`), or empty (`hasShape` false) when the family is unknown.
    EstimateInput input;
    bool hasShape = false;
    bool shapeFromTemplate = false;
    IdVector<StackId, bool> optimizerStack; // a frame in torch/optim

    // Whether an allocation could be the loss's logits: an activation or temporary not made by
    // an optimizer (whose step temporaries of the embedding are vocabulary × hidden, which can
    // equal tokens × vocabulary).
    bool mayBeLogits(Category category, StackId stack) const
    {
        return (category == Category::Activation || category == Category::Temporary) && !optimizerStack[stack];
    }
};

// `at` is the event the advice is about (peak or OOM): tokens are looked for among what is
// live there first. `gpus` is the world size when the caller knows it (with what gave it).
InferredSetup inferSetup(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, TracePoint at,
                         const Inferred<int> &gpus = {});

} // namespace memlens
