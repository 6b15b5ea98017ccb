#pragma once
// Training steps, and allocations that pile up across them (leak suspects).
//
// A step is one cycle of the whole training loop, told by what torch writes by itself (the
// evidence is kept: StepSource):
// - `ProfilerStep#N` where the trace has it, each opening a step;
// - else one step per optimizer step (figures/OptimizerSteps: torch.optim's `Optimizer.step#…`
//   marks, else the optimizer's frames in the stacks). Where a top-level record_function phase
//   of the script's own (a trailing iteration number and a " (module)" suffix ignored) repeats
//   once per optimizer step, the step opens with it, choosing the one at whose starts active
//   memory is lowest (the median over its starts): a training loop's cycle begins where the last
//   step's memory is gone and the next one's not yet made. Otherwise a step ends where its
//   optimizer step ends (with the zero_grad that follows it) and the next begins there.
//   Per-layer marks (FSDP's `FSDP::pre_forward (layers.3)`, Megatron's and DeepSpeed's), NCCL's
//   and micro-batches repeat between two optimizer steps, so they never open one; a trace
//   without an optimizer step has no steps.
// A step is partial when the window cuts it. Opened by phases: the events before the first
// opening phase when the cycle's phases show there (the window opened mid-step), the last step
// when one of its phases is still open or it lacks a phase the step before had, and a first step
// that opened before the first entry of a truncated window. Ended by the optimizer: the first
// step unless the trace saw it begin (nothing dropped, no more memory in use at the start than
// at its end), an optimizer step still running, and what the script made after the last one.
// Any step a stitched run's gap falls in is partial, and so is the first step after a gap when
// backward frees, inside it, memory that was in use at its start (the window opened in the tail
// of a step begun in the gap). With fewer than two whole steps, a trace has no steps.
#include "index/DeviceIndex.h"
#include "figures/OptimizerSteps.h"
#include "figures/StepParts.h"
#include "index/Phases.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memlens {

struct StepSummary {
    uint32_t index = 0;
    EventId firstEvent{0}, lastEvent{0};
    int64_t startUs = 0, endUs = 0;
    uint64_t peakActiveBytes = 0;
    EventId peakEvent{0};
    uint64_t endActiveBytes = 0;    // active (requested) bytes after the step's last event
    uint64_t endAllocatedBytes = 0; // the same in the allocator's rounded block sizes, as
                                    // torch.cuda.memory_allocated() counts them
    uint64_t peakReservedBytes = 0;
    bool partial = false; // cut by the window's start or end or by a gap: not a whole step
    // Stitched runs: the training iteration, counted back from the iteration its dump's path
    // names (a job dumps between steps: the last step begun in a dump is its iteration N).
    std::optional<int64_t> iteration;
};

// `truncated`: the trace's ring buffer dropped older entries (TraceCoverage), so a step that
// opened before the first entry lost some.
// "iteration 120" where the step's iteration is known (stitched runs), else "step 8".
std::string stepName(const StepSummary &step);

// Iterations a stitched run's dumps did not record: between steps[after - 1] and steps[after],
// iterations first … last. The Steps page draws them, the summary counts them.
struct IterationGap {
    size_t after = 0;
    int64_t first = 0, last = 0;
};
std::vector<IterationGap> iterationGaps(const std::vector<StepSummary> &steps);
// "iteration 7" or "iterations 6–9".
std::string iterationGapText(const IterationGap &gap);

struct StepFinding {
    std::vector<StepSummary> steps;
    StepSource source = StepSource::None; // the evidence found, whether or not it made two whole steps
};
// `parts`: the part of the step each entry is in, from the same phases.
StepFinding findSteps(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases, const StepParts &parts,
                      bool truncated);

// Memory created in one step and still alive at the end, from one call stack, that grew in
// more than one step.
struct LeakSuspect {
    StackId stack = StackTable::kEmpty;
    uint64_t bytes = 0; // live at the end from that stack (made in a step or outside every step)
    uint64_t allocations = 0;
    uint32_t steps = 0; // how many steps it grew in
    std::vector<uint64_t> perStepBytes; // one entry per step
};

// Growth needs this many whole steps to be told from one step's own memory.
constexpr size_t kLeakSuspectSteps = 3;

// Sorted by bytes, largest first; empty when nothing grows or with fewer than
// kLeakSuspectSteps whole steps.
std::vector<LeakSuspect> findLeakSuspects(const DeviceIndex &index, const std::vector<StepSummary> &steps);

size_t wholeStepCount(const std::vector<StepSummary> &steps);

// Why there are no leak suspects, for the summary ("" when there are some).
std::string whyNoLeakSuspects(const StepFinding &found, size_t suspects);
// Why there are no steps, naming the evidence looked for ("" when there are some).
std::string whyNoSteps(const StepFinding &found);

// The step with the highest peak (the first of equal ones); `steps` must not be empty.
const StepSummary &highestStep(const std::vector<StepSummary> &steps);

// The step an event belongs to (its position in `steps`), or -1.
int stepOfEvent(const std::vector<StepSummary> &steps, EventId event);

} // namespace memlens
