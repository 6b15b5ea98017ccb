#pragma once
// A file named on the window's command line starts loading before Qt and the window exist
// (their start takes a tenth of a second here, longer than a small file's whole load): the
// window's loader takes the snapshot, decoded or read from the cache, when it asks for the same
// path through the same cache. One never asked for is cancelled when the process ends.
#include "cache/CachedSnapshot.h"

#include <memory>
#include <optional>
#include <string>

namespace memlens {

// Starts loading `path` on a thread of its own; ignored while another is under way.
void beginHeadStart(const std::string &path, std::shared_ptr<const SnapshotCache> cache);

// The head start of `path` through `cache`, once, waited for while `control` hears its
// progress (and a cancel reaches it); nullopt when none was begun for them, and a head start of
// another path or cache is then cancelled and given up. Throws what loading threw.
std::optional<CachedSnapshot> takeHeadStart(const std::string &path, const SnapshotCache *cache, const LoadControl &control,
                                            const std::function<void(double)> &cacheProgress);

} // namespace memlens
