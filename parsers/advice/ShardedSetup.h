#pragma once
// The whole model's setup from one rank's shards of an FSDP run. Every unit's first forward
// gathers its parameters (FSDP2's `FSDP::all_gather (U)`: one buffer of world × the rank's
// shards; `FSDP::all_gather_copy_out (U)`: each parameter's unsharded storage), so the gathered
// storages are the model's weights, whole: their count is the unsharded parameter count, their
// sizes the shape (hidden from the square matrices, MLP and KV widths, vocabulary from the
// embedding or output unit), and their count ÷ the rank's shards the world size. The tokens per
// rank come from the logits over that vocabulary; which units are checkpointed from their frames.
#include "advice/SetupInference.h"
#include "figures/ModuleUnits.h"
#include "index/DeviceIndex.h"
#include "index/Phases.h"
#include "model/Snapshot.h"

#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct GatheredUnit {
    std::string name;
    std::vector<uint64_t> weights;        // the unsharded storages its first gather made, in bytes
    std::vector<AllocationId> storages;   // those storages
    uint64_t keptBytes = 0;               // made in the unit's passes and live at the moment
    uint64_t weightsLiveBytes = 0;        // of its gathered storages, live at the moment
    bool checkpointed = false;     // torch/utils/checkpoint.py frames in what it made
    bool layer = false;            // one of the repeated blocks
    bool forwardDone = false;      // a forward pass of it ended before the moment
};

struct ShardedModel {
    std::vector<GatheredUnit> units; // in the order they ran
    uint64_t params = 0;             // the whole model's
    std::string paramsHow;
    Inferred<int> world;
    int gatheredBytes = 2;  // per value of a gathered weight (the mixed-precision policy's param_dtype)
    std::optional<int> shardBytes; // per value of a shard (fp32 unless the model was cast)
    uint64_t shardTotal = 0; // sharded parameters alive at the moment, in bytes
    uint64_t hidden = 0, kvWidth = 0, mlpWidth = 0, vocab = 0;
    int layers = 0;
    Inferred<uint64_t> tokens; // per rank: logits of tokens × vocabulary
    std::string tokensFrom;    // "the failed request" or "live logits"

    // Bytes a checkpointed layer keeps: its input (tokens × hidden at the gathered width).
    uint64_t unitInputBytes() const { return tokens.value ? *tokens.value * hidden * uint64_t(gatheredBytes) : 0; }
    size_t checkpointedLayers() const;
};

// Nothing unless the file carries FSDP's hook marks and at least one gather of weights.
std::optional<ShardedModel> shardedModel(const Snapshot &snapshot, const DeviceIndex &index, const ModuleUnits &units,
                                         const std::vector<PhaseRange> &phases, TracePoint at);

// The setup with the whole model in place of the one gathered unit alive at the moment:
// parameters, dtype, preset and shape, tokens, world size and checkpointing.
void applyShardedModel(InferredSetup &setup, const ShardedModel &model);

} // namespace memlens
