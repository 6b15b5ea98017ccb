#include "cache/CachedSnapshot.h"

#include "cache/SnapshotCodec.h"
#include "decode/SnapshotLoader.h"

namespace memlens {

CacheWrite::CacheWrite(const SnapshotCache &cache, CacheKey key, std::shared_ptr<const Snapshot> snapshot, bool now)
    : cache_(cache), key_(std::move(key)), snapshot_(std::move(snapshot))
{
    if (now)
        start();
}

void CacheWrite::start()
{
    if (!thread_.joinable())
        thread_ = std::thread([cache = cache_, key = key_, snapshot = snapshot_] { cache.write(key, *snapshot); });
}

CacheWrite::~CacheWrite()
{
    if (thread_.joinable())
        thread_.join();
}

CachedSnapshot loadSnapshotCached(const std::string &path, const LoadControl &control, const SnapshotCache *cache,
                                  const std::function<void(double)> &cacheProgress, CacheWriting writing)
{
    CachedSnapshot out;
    const std::optional<CacheKey> key = cache ? SnapshotCache::keyOf(path) : std::nullopt;
    out.key = key;
    if (key) {
        out.snapshot = cache->read(*key, cacheProgress);
        out.fromCache = out.snapshot != nullptr;
        if (out.fromCache)
            return out;
    }
    out.snapshot = loadSnapshot(path, control);
    if (key && cacheable(*out.snapshot))
        out.writing = std::make_unique<CacheWrite>(*cache, *key, out.snapshot, writing == CacheWriting::Now);
    return out;
}

} // namespace memlens
