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
#include <utility>
#include <vector>

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

// What the rank recorded at the moment advised on, as the fixes read it.
struct ShardedRecord {
    uint64_t live = 0;          // allocated, without the failed request
    uint64_t logits = 0;        // live logits (16-bit)
    uint64_t logitsFp32 = 0;    // the loss's fp32 copy of them
    uint64_t shards = 0;        // sharded parameters
    uint64_t layerExtra = 0;    // what the layers that are not checkpointed keep beyond their input
    uint64_t keptWeights = 0;   // gathered weights of units whose forward ended
    uint64_t activations = 0;   // what the units made, less their weights
    uint64_t largestUnit = 0;   // gathered weights of the largest unit
    uint64_t largestLayer = 0;  // its parameters' values
    uint64_t recompute = 0;     // what one layer keeps without checkpointing
    size_t plainLayers = 0;
    // The layers not checkpointed, what each keeps beyond its input, those keeping most first
    // (the order a plan takes them in: each saves the most a layer can).
    std::vector<std::pair<uint64_t, const GatheredUnit *>> plain;

    uint64_t extraOfMost(size_t n) const
    {
        uint64_t sum = 0;
        for (size_t i = 0; i < n && i < plain.size(); ++i)
            sum += plain[i].first;
        return sum;
    }
};

ShardedRecord shardedRecord(const Advice &a, const ShardedModel &model, uint64_t request);

ShardedStep shardedStep(const Advice &a, const ShardedModel &model, uint64_t request, const ShardedChange &change);

// A fix's peak (Fix::peakAfterBytes): the reserved bytes the run needs at its highest, at the
// moment advised on (what the run needed less `savesAtMoment`) or later in the step (the
// allocator's overhead at that moment carried over).
uint64_t shardedFixPeak(const Advice &a, const ShardedStep &step, uint64_t savesAtMoment);

// Adds the fixes above to `a.fixes` (margins and order are the caller's).
void addShardedFixes(Advice &a, const ShardedModel &model, uint64_t request);

} // namespace memlens
