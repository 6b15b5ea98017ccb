#pragma once
// `memlens summary` output: the stable JSON object (keys documented in README.md) and the
// human-readable text.
#include "figures/DeviceFigures.h"
#include "figures/SnapshotSummary.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memlens {

// The keys a reader takes back (readSummaryJson, the answers kept beside a cache entry), written
// and read through one spelling.
namespace summary_keys {
inline constexpr const char *file = "file", *devices = "devices", *device = "device", *peakActive = "peak_active_bytes",
                            *peakReserved = "peak_reserved_bytes", *ooms = "oom_entries", *categories = "category_bytes_at_peak",
                            *unitsFrom = "units_from", *unitsAtPeak = "modules_at_peak";
} // namespace summary_keys

struct DeviceReport {
    DeviceSummary summary;
    std::optional<PointSummary> at; // with --at
    std::optional<uint64_t> deviceTotal; // with --gpu: the device's memory, for what lies outside the allocator
};

// A device's report: its summary and, with `at`, the moment asked about, its live blocks with
// their categories (the summary's own); `device`'s figures hold at least `top` blocks live at
// the peak.
DeviceReport reportDevice(const IndexedDevice &device, size_t top, std::optional<TracePoint> at, std::optional<uint64_t> deviceTotal = std::nullopt);

// Bytes per category as the JSON key `category_bytes_at_peak` holds them: {"parameter": …, …}.
nlohmann::json categoryBytesJson(const std::array<uint64_t, kCategoryCount> &bytes);

// One allocation as `summary --json` names it (addr, size, stream, alloc_index, category,
// frames, labels, site…): top_live's entries, and every other answer that names an allocation.
nlohmann::json liveBlockJson(const Snapshot &snapshot, const LiveBlockInfo &block);

std::string summaryJson(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);
nlohmann::json summaryJsonObject(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);

// What a reader takes back from a `summary --json` file (the ranks overview reads the files
// written beside rank snapshots), through the same keys the writer uses.
struct SummaryFileDevice {
    int device = 0;
    uint64_t peakActiveBytes = 0;
    uint64_t peakReservedBytes = 0;
    size_t oomEntries = 0;
    std::array<uint64_t, kCategoryCount> categoryBytesAtPeak{};
    UnitSource unitsFrom = UnitSource::None; // `units_from`; None when the file names no unit (or predates units)
    std::vector<UnitBytes> unitsAtPeak;
};
struct SummaryFile {
    std::string file; // as the writer was given it
    std::vector<SummaryFileDevice> devices;
};
// `units_from` (null without units) and `modules_at_peak` (live bytes at the peak by unit, `module`
// null for what no unit made), as a file's summary and `summary DIR`'s ranks write them.
void addUnitsJson(nlohmann::json &object, UnitSource source, const std::vector<UnitBytes> &atPeak);
// Untrusted text: nothing when it is not such a summary (or a value has the wrong type).
std::optional<SummaryFile> readSummaryJson(std::string_view text);
std::string summaryText(const Snapshot &snapshot, const std::string &file, const std::vector<DeviceReport> &devices);

} // namespace memlens
