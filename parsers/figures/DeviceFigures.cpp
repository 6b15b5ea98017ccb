#include "figures/DeviceFigures.h"

namespace memlens {

DeviceFigures assembleDeviceFigures(const Snapshot &snapshot, const DeviceIndex &index, size_t top, const DeviceFigures *basics)
{
    DeviceFigures figures;
    std::unique_ptr<const AllocationCategories> categories;
    figures.summary = completeSummary(snapshot, index, basics ? std::optional(basics->summary) : std::nullopt, top, nullptr, &categories);
    figures.categories = std::move(categories);
    figures.pools = basics ? basics->pools : privatePools(snapshot, index);
    figures.stackedPeakBytes = basics ? basics->stackedPeakBytes : stackedPeakBytes(index, figures.pools);
    return figures;
}

DeviceFigures basicDeviceFigures(const Snapshot &snapshot, const DeviceIndex &index)
{
    DeviceFigures figures;
    figures.summary = summarizeBasics(snapshot, index);
    figures.pools = privatePools(snapshot, index);
    figures.stackedPeakBytes = stackedPeakBytes(index, figures.pools);
    figures.summarised = false;
    return figures;
}

IndexedDevice indexDevice(const std::string &file, std::shared_ptr<const Snapshot> snapshot, int device, size_t top)
{
    auto index = std::make_shared<const DeviceIndex>(*snapshot, device);
    auto figures = std::make_shared<const DeviceFigures>(assembleDeviceFigures(*snapshot, *index, top));
    return {file, std::move(snapshot), device, std::move(index), std::move(figures)};
}

} // namespace memlens
