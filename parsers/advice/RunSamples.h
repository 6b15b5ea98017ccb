#pragma once
// The run as a few thousand points, each with its live bytes per category and, among them,
// what is logits or attention scores: what a fix scales to find where the peak would be.
#include "figures/AllocationCategories.h"
#include "index/DeviceIndex.h"
#include "figures/StepParts.h"
#include "model/Snapshot.h"

#include <array>
#include <functional>
#include <vector>

namespace memlens {

enum class Bucket : uint8_t { None, Logits, Scores };

struct RunSample {
    TracePoint point = TracePoint::start();
    StepPart part = StepPart::None; // of the step the sample is in (figures/StepParts)
    std::array<int64_t, kCategoryCount> categories{};
    int64_t logits = 0;
    int64_t scores = 0;
    int64_t total() const;
};

// Samples spread evenly over the events (about `count`), plus `mustInclude` exactly.
std::vector<RunSample> sampleRun(const DeviceIndex &index, const AllocationCategories &categories, const StepParts &parts,
                                 const std::function<Bucket(AllocationId allocation)> &bucketOf, TracePoint mustInclude, size_t count = 4096);

} // namespace memlens
