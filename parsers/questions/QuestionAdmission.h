#pragma once
// What every question over one snapshot admits: a device the file has, and a moment that device
// reaches. Each throws QuestionError naming the argument ("device", "at", "path").
#include "figures/DeviceFigures.h"
#include "index/DeviceIndex.h"
#include "index/Moment.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

// `device` when the file has it, else the first device with segments or entries.
int admitDevice(const Snapshot &snapshot, const std::string &file, std::optional<int64_t> device);
// `device` alone when given; else every device (none for a memory-timeline file).
std::vector<int> admitDevices(const Snapshot &snapshot, const std::string &file, std::optional<int64_t> device);
// The admitted device (admitDevice's), indexed with its figures (`top` blocks live at the peak).
IndexedDevice admitIndexedDevice(const std::string &file, std::shared_ptr<const Snapshot> snapshot, std::optional<int64_t> device, size_t top);
// The point of this device's trace the moment names.
TracePoint admitMoment(const DeviceIndex &index, const Moment &moment);

} // namespace memlens
