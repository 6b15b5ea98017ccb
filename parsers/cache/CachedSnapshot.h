#pragma once
// Opening a file through the snapshot cache: a matching entry is read instead of the file;
// otherwise the file is decoded and its entry written on a second thread, while the caller
// indexes or once it says (the thread shares ownership of the snapshot, which nobody changes
// any more).
#include "cache/SnapshotCache.h"
#include "decode/input/ByteReader.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace memlens {

// Writes an entry on a thread of its own, at once or when start() is called; waits for the
// write when destroyed (one never started is not written).
class CacheWrite {
public:
    CacheWrite(const SnapshotCache &cache, CacheKey key, std::shared_ptr<const Snapshot> snapshot, bool now);
    ~CacheWrite();
    CacheWrite(const CacheWrite &) = delete;
    CacheWrite &operator=(const CacheWrite &) = delete;
    void start();

private:
    SnapshotCache cache_;
    CacheKey key_;
    std::shared_ptr<const Snapshot> snapshot_;
    std::thread thread_;
};

// When a decoded file's cache entry is written: beside what the caller does next, or once the
// caller says (CacheWrite::start): the window's first frame should not share its cores with
// compressing 400 MB.
enum class CacheWriting { Now, WhenStarted };

struct CachedSnapshot {
    std::shared_ptr<const Snapshot> snapshot;
    bool fromCache = false;
    std::optional<CacheKey> key; // the file's, when read through a cache
    std::unique_ptr<CacheWrite> writing; // null: read from the cache, or not cacheable
};

// `cache` null: no cache. `cacheProgress` (may be empty) hears the fraction of a cache entry read.
// Throws what loadSnapshot throws.
CachedSnapshot loadSnapshotCached(const std::string &path, const LoadControl &control, const SnapshotCache *cache,
                                  const std::function<void(double)> &cacheProgress = {}, CacheWriting writing = CacheWriting::Now);

} // namespace memlens
