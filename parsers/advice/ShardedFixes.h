#pragma once
// Fixes for an FSDP run, priced from what the rank recorded: the failing allocation's own fix
// when it is the logits (a chunked or fused cross-entropy), checkpointing the layers that are
// not, resharding units that keep their gathered weights after forward, offloading the shards,
// and more ranks. A trace that ends in the first forward (an OOM before backward ran) cannot show
// whether the rest of the step fits, so each fix is also judged on the whole step as FSDP runs
// it (shardedStep): `fits` is the whole step's answer, and the text says whether the fix clears
// the recorded forward as well.
#include "advice/FixRanking.h"
#include "advice/ShardedSetup.h"

#include <cstdint>
#include <string>

namespace memlens {

// What a fix changes in the rank's memory.
struct ShardedChange {
    bool chunkedLoss = false;      // logits computed and consumed in chunks
    bool checkpointAll = false;    // every layer keeps only its input
    size_t checkpointLayers = 0;   // or these many more layers keep only theirs: those keeping most, first
    bool reshardAll = false;       // no unit keeps its gathered weights after forward
    bool offloadShards = false;    // shards, their gradients and optimizer state on the CPU
    int worldFactor = 1;           // ranks × this
};

// One rank's memory over a whole step, by phase: the forward as recorded (with the change),
// the loss, the start of backward and the optimizer step.
struct ShardedStep {
    uint64_t forward = 0, loss = 0, backward = 0, optimizer = 0;
    uint64_t peak() const;
    std::string peakPhase() const;
};

ShardedStep shardedStep(const Advice &a, const ShardedModel &model, uint64_t request, const ShardedChange &change);

// Adds the fixes above to `a.fixes` (margins and order are the caller's).
void addShardedFixes(Advice &a, const ShardedModel &model, uint64_t request);

} // namespace memlens
