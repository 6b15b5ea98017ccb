#pragma once
// What the user's search text finds: an allocation matches when the text (case-insensitive)
// occurs in its address ("0x…"), its labels, user metadata or compiled region, or a frame of its
// stack (file, function, an FX frame's model line and node). One rule for the Live filter and
// the timeline's search; answers per stack are cached, so asking for the bands of every frame
// or for every allocation of a long run stays cheap.
#include "index/DeviceIndex.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace memlens {

class AllocationSearch {
public:
    AllocationSearch(const Snapshot &snapshot, const DeviceIndex &index, std::string_view text);

    bool empty() const { return needle_.empty(); }
    bool matches(AllocationId allocation) const;
    // The first matching allocation after `after` in id order (trace allocations are in event
    // order), wrapping around; none when none matches.
    AllocationId next(AllocationId after) const;

private:
    bool contains(std::string_view haystack) const;
    bool stackMatches(StackId stack) const;

    const Snapshot &snapshot_;
    const DeviceIndex &index_;
    std::string needle_; // lower case
    mutable std::unordered_map<StackId, bool> stacks_;
};

} // namespace memlens
