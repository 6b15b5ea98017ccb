#include "cache/CachedSnapshot.h"

#include "cache/SnapshotCodec.h"
#include "decode/SnapshotLoader.h"

namespace memlens {

CacheWrite::CacheWrite(const SnapshotCache &cache, CacheKey key, std::shared_ptr<const Snapshot> snapshot)
    : thread_([cache, key = std::move(key), snapshot = std::move(snapshot)] { cache.write(key, *snapshot); })
{
}

CacheWrite::~CacheWrite()
{
    thread_.join();
}

CachedSnapshot loadSnapshotCached(const std::string &path, const LoadControl &control, const SnapshotCache *cache,
                                  const std::function<void(double)> &cacheProgress)
{
    CachedSnapshot out;
    const std::optional<CacheKey> key = cache ? SnapshotCache::keyOf(path) : std::nullopt;
    if (key) {
        out.snapshot = cache->read(*key, cacheProgress);
        out.fromCache = out.snapshot != nullptr;
        if (out.fromCache)
            return out;
    }
    out.snapshot = loadSnapshot(path, control);
    if (key && cacheable(*out.snapshot))
        out.writing = std::make_unique<CacheWrite>(*cache, *key, out.snapshot);
    return out;
}

} // namespace memlens
