#pragma once
// The timeline's layouts of a file's devices kept beside its cache entry (a side entry,
// cache/SideEntry: for the same file and executable only), so that a file reopened from the
// cache draws its first frame without building them again (0.15 s on a 12 M-entry run). One
// zstd frame with its checksum; read as untrusted: damaged bytes give nothing, and parts that do
// not fit the device's index are refused when the layout is made from them.
#include "cache/SnapshotCache.h"
#include "views/TimelineLayout.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace memlens {

using LayoutPartsByDevice = std::map<int, TimelineLayoutParts>;

std::string encodeLayouts(const std::map<int, std::shared_ptr<const TimelineLayout>> &layouts);
// Nothing for bytes that are not such an encoding.
std::optional<LayoutPartsByDevice> decodeLayouts(std::string_view bytes);

std::optional<LayoutPartsByDevice> readStoredLayouts(const SnapshotCache &cache, const CacheKey &key);
bool storeLayouts(const SnapshotCache &cache, const CacheKey &key, const std::map<int, std::shared_ptr<const TimelineLayout>> &layouts);

} // namespace memlens
