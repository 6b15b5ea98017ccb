#pragma once
// Phases a profiler trace implies without record_function marks of its own: forward is each
// outermost `nn.Module: …` call (with_stack / with_modules traces), backward the autograd
// engine's `evaluate_function` operators, clustered into one range per backward pass. With them
// the allocation categories work for profiler traces as for snapshots.
#include <string>
#include <vector>

namespace memlens {

struct TimedRange {
    double start = 0;
    double end = 0; // microseconds, as the trace's ts
};

struct OperatorRanges {
    std::vector<TimedRange> modules;  // python_function "nn.Module: …"
    std::vector<TimedRange> autograd; // cpu_op "autograd::engine::evaluate_function: …"
    std::vector<TimedRange> optimizer; // user annotations naming an optimizer step
    std::vector<TimedRange> steps;     // user annotations ProfilerStep#N (or the user's own steps)
};

struct InferredPhase {
    std::string name; // "forward" or "backward"
    TimedRange range;
};

// In time order. A backward cluster never spans a forward, optimizer or step start; without
// module calls, forward runs from a step's start to its first backward.
std::vector<InferredPhase> inferPhases(OperatorRanges ranges);

} // namespace memlens
