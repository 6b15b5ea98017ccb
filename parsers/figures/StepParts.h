#pragma once
// Which part of a training step each entry lies in — forward, backward, the optimizer step, or
// between steps (StepPart::None) — from the same evidence the steps are found by: the optimizer
// step from torch.optim's Optimizer.step# marks or its frames (figures/OptimizerSteps), backward
// from the autograd engine's side of the stacks, forward from a module's call on the script's
// side. No record_function mark of a script's own (forward / backward / optimizer) and no name a
// user chose decides it. An entry that shows neither side (a free, the loss computed by the
// script) is in the part the entries before it were; after an optimizer step the run is between
// steps until forward or backward work shows again.
#include "figures/OptimizerSteps.h"
#include "index/DeviceIndex.h"
#include "index/Phases.h"
#include "model/Snapshot.h"

#include <vector>

namespace memlens {

class StepParts {
public:
    StepParts(const Snapshot &snapshot, const DeviceIndex &index, const std::vector<PhaseRange> &phases);
    // The part the run is in after the first entries up to t (None at the start).
    StepPart at(TracePoint t) const;
    // The stretches of entries [first, end) in `part`, in order: each as long as it goes.
    std::vector<std::pair<EventId, EventId>> runsOf(StepPart part) const;
    // The optimizer steps the parts were found by (the steps count them too: found once).
    const OptimizerSteps &optimizerSteps() const { return optimizer_; }

private:
    struct Change {
        uint32_t from; // the first entry of the stretch
        StepPart part;
    };
    OptimizerSteps optimizer_;
    std::vector<Change> changes_; // in entry order, each a different part from the one before
    uint32_t entries_ = 0;
};

} // namespace memlens
