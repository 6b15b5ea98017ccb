#pragma once
// A file's devices' indexes and timeline layouts kept beside its cache entry (a side entry,
// cache/SideEntry: for the same file and executable only), so that a file reopened from the
// cache draws its first frame without indexing it and building its layouts again. Each array is
// kept in pieces (cache/IndexSections): zstd frames read straight into place on two cores, or
// the bytes as they are, mapped into arrays of 4 MB or more. Read
// as untrusted: counts are bounded by the snapshot before anything is allocated, damaged bytes
// give nothing, and parts that do not fit are refused when the index or layout is made.
#include "cache/IndexSections.h"
#include "cache/SnapshotCache.h"
#include "index/DeviceIndex.h"
#include "views/TimelineLayout.h"

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace memlens {

struct KeptDevice {
    DeviceIndexParts index;
    TimelineLayoutParts layout;
};
using KeptDevices = std::map<int, KeptDevice>;
// What a load is given to make its indexes and layouts from, and whether it refused any of it
// (set from the layout's thread too): refused parts are kept again once built.
struct KeptParts {
    KeptDevices devices;
    std::atomic<bool> refused{false};
};

// A loaded document's indexes and layouts, kept as they are (no copy of their parts).
struct LiveDevice {
    const DeviceIndex *index;
    const TimelineLayout *layout;
};
using LiveDevices = std::map<int, LiveDevice>;

std::string encodeIndexes(const KeptDevices &devices);
std::string encodeIndexes(const LiveDevices &devices); // the same bytes as their parts'
// Nothing for bytes that are not such an encoding of `snapshot`'s devices.
std::optional<KeptDevices> decodeIndexes(std::string_view bytes, const Snapshot &snapshot);
std::optional<KeptDevices> decodeIndexes(const SectionBytes &bytes, const Snapshot &snapshot);

std::optional<KeptDevices> readStoredIndexes(const SnapshotCache &cache, const CacheKey &key, const Snapshot &snapshot);
bool storeIndexes(const SnapshotCache &cache, const CacheKey &key, const KeptDevices &devices);
bool storeIndexes(const SnapshotCache &cache, const CacheKey &key, const LiveDevices &devices);

} // namespace memlens
