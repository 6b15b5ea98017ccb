#pragma once
// "What do I change?": the fixes for one snapshot, ranked by what each would save of the
// measured peak (or OOM). Each fix scales the measured bytes per category with the estimator's
// rules for the inferred setup (a technique's estimate ÷ the setup's, per category), over the
// whole run, so a fix that moves the peak to another phase is credited only with the
// difference of the peaks. Logits and attention scores are measured directly; allocator settings
// are priced by replaying the trace (advice/AllocatorFixes).
#include "advice/SetupInference.h"
#include "advice/ShardedSetup.h"
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "index/Moment.h"
#include "estimator/Techniques.h"
#include "model/Snapshot.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct DeviceSummary;

struct Fix {
    std::string technique;
    Effort effort = Effort::Numerics;
    int64_t savesBytes = 0;
    uint64_t peakAfterBytes = 0; // reserved: Advice::neededBytes - savesBytes
    std::optional<bool> fits; // against the capacity; empty when it is unknown
    std::string why;
    std::vector<std::string> affects;    // the categories (or "logits", "attention_scores", "reserved") it changes
    std::optional<EstimateInput> applied; // the inferred setup with the fix, when the estimator models it
    // A fix that fits: the capacity left over, and whether that is within the error of what
    // priced it (1 % of the capacity for a replayed setting, 5 % for the estimator's rules).
    std::optional<uint64_t> marginBytes;
    bool thinMargin = false;
    std::vector<std::string> layers; // the layers a checkpoint plan names, in the order they run
};

struct AdviceOptions {
    std::optional<Moment> at;            // none: the first OOM, else the peak
    // The device's summary when the caller made one: its phases and units are taken, not found
    // again (the window's pipeline summarises each device before it advises).
    const DeviceSummary *summary = nullptr;
    std::optional<uint64_t> capacity;    // --gpu / --capacity
    std::string capacitySource;          // what gave it
    // The device's total (--gpu): at an OOM, what it held outside the allocator is taken off
    // the capacity.
    std::optional<uint64_t> deviceTotal;
    // The run's GPUs (ZeRO / FSDP shard over them), when the user or the rank files beside the
    // snapshot say (the caller asks ranks/RunGpus); a snapshot alone does not. Without it a
    // sharding fix names the fewest GPUs that bring the peak under the capacity (8 without a
    // capacity, as an example) and is never marked as fitting.
    Inferred<int> gpus;
    // Fixes that fit first, least effort first, then by bytes saved; then those that do not fit
    // (or cannot be told to), by bytes saved. `bySaves`: by bytes saved alone.
    bool bySaves = false;
    // Allocator settings are replayed unasked (no OOM, no capacity) on traces up to this many
    // entries: a replay costs about a second per 10 M.
    size_t replayUnaskedEntries = 2'000'000;
};

struct Advice {
    InferredSetup setup;
    std::optional<ShardedModel> sharded; // an FSDP run: the whole model from the rank's gathers
    TracePoint point = TracePoint::start(); // the moment advised on: after the OOM or peak entry
    bool oom = false;
    uint64_t peakBytes = 0;     // allocated at the event, plus the failed request at an OOM
    uint64_t reservedBytes = 0; // reserved at the event
    // What the run needed reserved (AllocatorFixes' recordedNeed): every fix's peak is this less
    // what it saves, the reserved bytes the run needs at its highest after the fix.
    uint64_t neededBytes = 0;
    std::array<uint64_t, kCategoryCount> categories{}; // at the event
    uint64_t logitsBytes = 0;          // live at the event: the loss's logits
    uint64_t attentionScoreBytes = 0;  // live at the event: batch × heads × seq² score matrices
    std::optional<uint64_t> capacity;
    std::string capacityHow;
    std::optional<uint64_t> outsideAllocatorBytes; // at the OOM, with the device's total
    std::vector<Fix> fixes; // ordered as AdviceOptions::bySaves says; only fixes that save something
    std::string noFixesBecause; // why `fixes` is empty, in words; "" when it is not
    std::string notTried;       // fixes left untried and why, in words; "" when none were
};

// "62.0 MiB to spare (1.0 % of the capacity)", or with ", within the error of what priced it":
// a fitting fix's margin as the command line and the window say it ("" without one).
std::string marginText(const Fix &fix, uint64_t capacity);

// Throws std::invalid_argument when `at` names no event.
Advice advise(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, const AdviceOptions &options);

} // namespace memlens
