#pragma once
// What each allocation is — parameter, gradient, optimizer state, activation, temporary — inferred
// from the stacks that made and freed it and what ran in between (README.md states the rules),
// never from a record_function phase or a function the user named.
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <array>
#include <string_view>
#include <vector>

namespace memlens {

// KvCache: a serving framework's KV cache (vLLM, SGLang), by the framework's own functions.
enum class Category : uint8_t { Parameter, Gradient, OptimizerState, Activation, Temporary, KvCache, Unknown };
constexpr int kCategoryCount = 7;
std::string_view categoryName(Category c);  // as JSON, CSV and the dataset spell it: "optimizer_state"
std::string_view categoryLabel(Category c); // as people read it: "optimizer state"

class AllocationCategories {
public:
    AllocationCategories(const Snapshot &snapshot, const DeviceIndex &index);
    Category of(AllocationId allocation) const { return categories_[allocation.index()]; }
    // Bytes per category among the allocations alive after event e.
    std::array<uint64_t, kCategoryCount> bytesAt(const DeviceIndex &index, TracePoint t) const;

    // The same, fast: running totals kept every kCheckpointEvery events.
    std::array<uint64_t, kCategoryCount> totalsAt(TracePoint t) const;

    static constexpr uint32_t kCheckpointEvery = 1024;

private:
    void buildTotals();
    // Adds event e's change to the running totals.
    void applyEvent(std::array<int64_t, kCategoryCount> &totals, EventId e) const;

    const DeviceIndex &index_;
    std::vector<Category> categories_;
    std::vector<std::array<int64_t, kCategoryCount>> checkpoints_; // totals before event k·K
};

} // namespace memlens
