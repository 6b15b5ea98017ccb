#pragma once
// When the optimizer stepped, from what torch writes by itself: torch.optim's own
// `Optimizer.step#…` record_function ranges (any optimizer derived from torch.optim.Optimizer
// records them), else the optimizer's frames in the recorded stacks (Python under torch/optim/,
// a fused optimizer's kernel), else a phase of the script's own whose name says optimizer.
// A training step holds one optimizer step, so these are what steps are counted by.
#include "index/DeviceIndex.h"
#include "index/Phases.h"
#include "model/Snapshot.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

namespace memlens {

// The evidence a run's steps came from (summary --json's steps_from).
enum class StepSource : uint8_t { None, ProfilerStep, OptimizerMarks, OptimizerFrames, Marks };
std::string_view stepSourceName(StepSource source); // "profiler_step", …; "" for None
std::string_view stepSourceText(StepSource source); // in words: "torch.optim's Optimizer.step# marks", …

struct OptimizerRun {
    int64_t startUs = 0;
    int64_t endUs = INT64_MAX; // INT64_MAX: still running when the trace ends
};

struct OptimizerSteps {
    std::vector<OptimizerRun> runs; // in time order
    StepSource source = StepSource::None;
    // When forward or backward work first came before each run and after the last (one more than
    // the runs; INT64_MAX: none): where each step's own work begins.
    std::vector<int64_t> workFrom;
};

// Entries' times against the runs, walked in the trace's order (almost always time order).
class OptimizerRunCursor {
public:
    explicit OptimizerRunCursor(const std::vector<OptimizerRun> &runs) : runs_(runs) {}
    // The runs that ended before t: t lies in the gap after them unless the next one holds it.
    size_t endedBefore(int64_t t);
    bool inRun(int64_t t)
    {
        const size_t k = endedBefore(t);
        return k < runs_.size() && runs_[k].startUs <= t;
    }

private:
    const std::vector<OptimizerRun> &runs_;
    size_t before_ = 0;
    int64_t last_ = INT64_MIN;
};

// A stitched run's bridge: the entries the stitcher made at a gap's end, without a stack, for
// what the next dump held at its start. They show no work and no part of a step (an empty stack
// is the autograd engine's only where torch recorded it).
class StitchBridges {
public:
    StitchBridges(const Snapshot &snapshot, int device);
    bool has(const EventTable &events, uint32_t e) const
    {
        return !ends_.empty() && events.stack[e] == StackTable::kEmpty && std::binary_search(ends_.begin(), ends_.end(), events.timeUs[e]);
    }

private:
    std::vector<int64_t> ends_; // the gaps' ends, sorted
};

// One run per optimizer step: the step and the zero_grad that follows it before the script makes
// anything else, and runs with no forward or backward work between them (several optimizers,
// a zero_grad at the top of the loop) are one.
OptimizerSteps findOptimizerSteps(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases);

} // namespace memlens
