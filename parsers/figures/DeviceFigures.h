#pragma once
// A device's figures, assembled in one place: its categories, its summary (peaks, OOMs, steps,
// phases, leaks, units, file health) and its private pools. The window's document, `summary`,
// the export, the rank overview and the diff all take them from here, so a new figure is added
// once (docs/DESIGN.md, "Where a new figure goes").
#include "figures/AllocationCategories.h"
#include "figures/PoolUsage.h"
#include "figures/SnapshotSummary.h"

#include <memory>
#include <string>
#include <vector>

namespace memlens {

struct DeviceFigures {
    std::shared_ptr<const AllocationCategories> categories;
    DeviceSummary summary;
    std::vector<PoolUsage> pools;  // private mempools (CUDA graphs, MemPool); empty for most runs
    uint64_t stackedPeakBytes = 0; // how high the timeline's stack reaches (pools at their envelope)
    bool summarised = true;        // false: the summary's basics only, no categories (the window's first frame)
};

// `top`: how many of the largest blocks live at the peak the summary lists; `basics` (may be
// null): this device's basicDeviceFigures, completed instead of made again.
DeviceFigures assembleDeviceFigures(const Snapshot &snapshot, const DeviceIndex &index, size_t top, const DeviceFigures *basics = nullptr);
// The figures the timeline's first frame needs (summarizeBasics, the private pools, how high
// the stack reaches), `summarised` false: what the window shows while the rest is worked out.
DeviceFigures basicDeviceFigures(const Snapshot &snapshot, const DeviceIndex &index);

// One device of a file, indexed, with its figures: what the window's document holds for each
// device, and what a question asked of a file makes once. The questions answer from it, so the
// window and the commands read the same figures through the same refusals.
struct IndexedDevice {
    std::string file;
    std::shared_ptr<const Snapshot> snapshot;
    int device = 0;
    std::shared_ptr<const DeviceIndex> index;
    std::shared_ptr<const DeviceFigures> figures; // null only where the index alone answers (stacks)
};

IndexedDevice indexDevice(const std::string &file, std::shared_ptr<const Snapshot> snapshot, int device, size_t top);

} // namespace memlens
