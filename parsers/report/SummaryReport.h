#pragma once
// `memlens summary` output: the stable JSON object (keys documented in README.md) and the
// human-readable text.
#include "analysis/SnapshotSummary.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

struct DeviceReport {
    DeviceSummary summary;
    std::optional<PointSummary> at; // with --at
};

// Bytes per category as the JSON key `category_bytes_at_peak` holds them: {"parameter": …, …}.
nlohmann::json categoryBytesJson(const std::array<uint64_t, kCategoryCount> &bytes);

std::string summaryJson(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);
std::string summaryText(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);

} // namespace memlens
