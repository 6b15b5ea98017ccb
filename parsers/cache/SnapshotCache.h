#pragma once
// Decoded snapshots kept on disk so that opening a file again skips decoding: one entry per
// file in $XDG_CACHE_HOME/memlens (default ~/.cache/memlens), keyed by the file's path, size,
// modification and change times, inode and content checksum, zstd-compressed behind a header with a format
// version. Entries are written atomically (temporary file + rename; a killed writer's temporary
// is swept by the next eviction); the oldest are evicted past a size cap. An entry is untrusted
// input: a corrupt, truncated, stale or foreign one is ignored (the file is read again), never
// believed.
#include "model/Snapshot.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace memlens {

class SectionBytes;

struct CacheKey {
    std::string path; // absolute
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    // The inode's change time and number: a file rewritten in place with its size and modification
    // time put back (cp -p, touch -r) still changes them, and no tool sets them. The checksum reads
    // only the first and last MiB.
    int64_t ctimeNs = 0;
    uint64_t inode = 0;
    std::string checksum; // snapshotChecksum(): size and the first and last MiB
    bool operator==(const CacheKey &) const = default;
};

class SnapshotCache {
public:
    static constexpr uint64_t kDefaultCapBytes = 2ull << 30;

    // `dir` empty: $XDG_CACHE_HOME/memlens or ~/.cache/memlens.
    explicit SnapshotCache(std::string dir = {}, uint64_t capBytes = kDefaultCapBytes);
    const std::string &directory() const { return dir_; }

    // Nothing when the file cannot be stat'ed.
    static std::optional<CacheKey> keyOf(const std::string &path);
    std::string entryPath(const CacheKey &key) const;

    // The cached snapshot, or null when there is none that matches `key` exactly and reads whole.
    // `progress` (may be empty) hears the fraction done as the entry is read and decoded.
    std::unique_ptr<Snapshot> read(const CacheKey &key, const std::function<void(double)> &progress = {}) const;
    // False when it could not be written (no room, no permission); nothing half-written stays.
    // Compresses as it encodes: no copy of the snapshot is held.
    bool write(const CacheKey &key, const Snapshot &snapshot) const;
    // Removes the oldest entries and side entries (cache/SideEntry) until the total is within the cap.
    void evict() const;

private:
    std::string dir_;
    uint64_t cap_;
};

// The most bytes an entry of `key`'s file, or the columns kept beside it (StoredColumns), may
// hold: more than its decoded snapshot could be is not ours to read.
uint64_t largestEntryBytes(const CacheKey &key);

// Reads the entry at `file` for `key`; `file` names it in nothing (errors are swallowed).
// Exposed for the fuzz target: bytes of an entry file in, a snapshot or null out.
// The entries' format version (`memlens --version` prints it).
uint32_t cacheFormatVersion();
// The format version and `key` as an entry's header holds them: what an entry, or the answers
// kept beside it, must begin with to be believed.
std::string cacheKeyBytes(const CacheKey &key);

// Writes `path` through "<path>.tmp<PID>" (what eviction sweeps once its writer is gone) renamed
// into place; false, with nothing half-written left, when `write` or the rename fails.
bool writeCacheFile(const std::string &path, const std::function<bool(std::ostream &)> &write);

// `rawColumns`: the entry's columns as they are (StoredColumns), taken where they hold them;
// `rawRefused` is then set when they did not hold every column as it is in the entry.
std::unique_ptr<Snapshot> readCacheEntry(std::string_view fileBytes, const CacheKey &key, const SectionBytes *rawColumns = nullptr,
                                         bool *rawRefused = nullptr);
std::string makeCacheEntry(const CacheKey &key, const Snapshot &snapshot);

} // namespace memlens
