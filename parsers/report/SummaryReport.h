#pragma once
// `memlens summary` output: the stable JSON object (keys documented in README.md) and the
// human-readable text.
#include "analysis/SnapshotSummary.h"

#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct DeviceReport {
    DeviceSummary summary;
    std::optional<PointSummary> at; // with --at
};

std::string summaryJson(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);
std::string summaryText(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);

} // namespace memlens
