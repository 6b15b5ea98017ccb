#include "cache/SnapshotCache.h"

#include "cache/CachePayload.h"
#include "cache/SnapshotCodec.h"
#include "cache/StoredColumns.h"
#include "decode/input/FileChecksum.h"
#include "decode/input/UniqueFd.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace memlens {

namespace fs = std::filesystem;

namespace {

constexpr char kCacheEntryMagic[8] = {'M', 'L', 'C', 'A', 'C', 'H', 'E', '\n'};
// Bumped whenever decoding yields something else, not only when the layout changes: an entry
// written by an older memlens would otherwise keep its older reading of the file.
// 2: annotate, pool ids, host memory, FX frames. 3: profiler traces' inferred phases.
// 4: large event columns in zstd frames of their own.
// 7: profiler traces' malformed [memory] events counted; hook marks (FSDP::pre_forward …) are no
// pass in the inferred phases.
// 8: stitched runs' dump ends (their steps' iteration numbers).
// 9: the key holds the file's change time and inode. 12: a file without time_us is timed by
// its entries' order (an older entry of such a file holds zeros).
constexpr uint32_t kFormatVersion = 12;
// A decoded snapshot is at most this many times its entry's compressed size; more is a
// decompression bomb, not a snapshot.
constexpr uint64_t kMaxExpansion = 64;

// Header: magic, version, then the key as written, then the payload's decoded size.
std::string header(const CacheKey &key, uint64_t payloadSize)
{
    std::string h(kCacheEntryMagic, sizeof kCacheEntryMagic);
    h += cacheKeyBytes(key);
    h.append(reinterpret_cast<const char *>(&payloadSize), sizeof payloadSize);
    return h;
}

std::string defaultDirectory()
{
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        return std::string(xdg) + "/memlens";
    if (const char *home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/memlens";
    return {};
}

} // namespace

uint32_t cacheFormatVersion()
{
    return kFormatVersion;
}

std::string cacheKeyBytes(const CacheKey &key)
{
    std::string h;
    auto put = [&](const auto &v) { h.append(reinterpret_cast<const char *>(&v), sizeof v); };
    put(kFormatVersion);
    put(key.size);
    put(key.mtimeNs);
    put(key.ctimeNs);
    put(key.inode);
    put(static_cast<uint32_t>(key.path.size()));
    h += key.path;
    put(static_cast<uint32_t>(key.checksum.size()));
    h += key.checksum;
    return h;
}

namespace {
// The whole entry, header then compressed payload, handed to `out` in pieces.
bool streamEntry(const CacheKey &key, const Snapshot &snapshot, const std::function<bool(std::string_view)> &out)
{
    return out(header(key, encodeSnapshot(snapshot, {}))) && writePayload(snapshot, out);
}
} // namespace

std::string makeCacheEntry(const CacheKey &key, const Snapshot &snapshot)
{
    std::string entry;
    streamEntry(key, snapshot, [&](std::string_view piece) {
        entry.append(piece);
        return true;
    });
    return entry;
}

uint64_t largestEntryBytes(const CacheKey &key)
{
    return key.size * 4 + (64u << 20);
}

std::unique_ptr<Snapshot> readCacheEntry(std::string_view bytes, const CacheKey &key, const SectionBytes *rawColumns, bool *rawRefused)
{
    const std::string expected = header(key, 0);
    const size_t keyBytes = expected.size() - sizeof(uint64_t);
    if (bytes.size() < expected.size() || bytes.substr(0, keyBytes) != std::string_view(expected).substr(0, keyBytes))
        return nullptr; // another format version, another file, or a stale entry
    uint64_t payloadSize = 0;
    std::memcpy(&payloadSize, bytes.data() + keyBytes, sizeof payloadSize);
    const std::string_view compressed = bytes.substr(expected.size());
    if (payloadSize > compressed.size() * kMaxExpansion + 4096)
        return nullptr;
    try {
        PayloadReader reader(compressed, rawColumns);
        auto snapshot = decodeSnapshot(payloadSize, reader);
        if (rawRefused)
            *rawRefused = rawColumns && reader.rawColumnsRefused();
        return reader.endsCleanly() ? std::move(snapshot) : nullptr;
    } catch (const CacheFormatError &) {
        return nullptr;
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}

SnapshotCache::SnapshotCache(std::string dir, uint64_t capBytes)
    : dir_(dir.empty() ? defaultDirectory() : std::move(dir)), cap_(capBytes)
{
}

std::optional<CacheKey> SnapshotCache::keyOf(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    std::error_code ec;
    const fs::path absolute = fs::absolute(path, ec);
    if (ec)
        return std::nullopt;
    CacheKey key;
    key.path = absolute.lexically_normal().string();
    key.size = static_cast<uint64_t>(st.st_size);
    key.mtimeNs = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    key.ctimeNs = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    key.inode = static_cast<uint64_t>(st.st_ino);
    key.checksum = snapshotChecksum(path);
    if (key.checksum.empty())
        return std::nullopt;
    return key;
}

std::string SnapshotCache::entryPath(const CacheKey &key) const
{
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.mlcache", static_cast<unsigned long long>(fnv1a(key.path)));
    return dir_ + "/" + name;
}


namespace {

// The writer's PID of a temporary entry "<entry name>.tmp<PID>", nothing for other names.
std::optional<pid_t> writerOf(std::string_view name, std::string_view entryName)
{
    const std::string prefix = std::string(entryName) + ".tmp";
    if (!name.starts_with(prefix))
        return std::nullopt;
    pid_t pid = 0;
    const auto [end, ec] = std::from_chars(name.data() + prefix.size(), name.data() + name.size(), pid);
    if (ec != std::errc() || end != name.data() + name.size() || pid <= 0)
        return std::nullopt;
    return pid;
}

// A writer still at work on this entry: another memlens (a window closed a moment ago finishing
// its write) or this one. Its temporary grows; the entry appears when it is renamed.
bool entryBeingWritten(const std::string &entry)
{
    std::error_code ec;
    const fs::path path(entry);
    for (const auto &e : fs::directory_iterator(path.parent_path(), ec)) {
        const std::optional<pid_t> pid = writerOf(e.path().filename().string(), path.filename().string());
        std::error_code timeEc;
        const auto age = fs::file_time_type::clock::now() - fs::last_write_time(e.path(), timeEc);
        if (pid && (*pid == ::getpid() || ::kill(*pid, 0) == 0) && !timeEc && age < std::chrono::seconds(10))
            return true;
    }
    return false;
}

} // namespace

std::unique_ptr<Snapshot> SnapshotCache::read(const CacheKey &key, const std::function<void(double)> &progress) const
{
    if (dir_.empty())
        return nullptr;
    const std::string file = entryPath(key);
    // Reopened while a writer finishes this entry (a window closed a second after it drew a
    // large file): wait for it, up to a minute while it is at work, instead of decoding cold.
    for (int waited = 0; waited < 600 && entryBeingWritten(file); ++waited)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    // Not blocking: a FIFO put in its place is refused (not a regular file), not waited on.
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return nullptr;
    const auto size = static_cast<uint64_t>(st.st_size);
    if (size > largestEntryBytes(key))
        return nullptr;
    // Mapped, not read: read into fresh memory, each page would cost a fault twice (docs/bench.md,
    // issue 66); the file's cached pages cost neither. Entries are replaced by rename, never
    // rewritten in place, so the mapping keeps the bytes it was given.
    void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (mapped == MAP_FAILED)
        return nullptr;
    const std::unique_ptr<void, std::function<void(void *)>> unmap(mapped, [size](void *p) { ::munmap(p, size); });
    const std::string_view bytes(static_cast<const char *>(mapped), size);
    if (progress)
        progress(0.2);
    const std::optional<OpenStoredColumns> columns = openStoredColumns(*this, key);
    bool columnsRefused = false;
    auto snapshot = readCacheEntry(bytes, key, columns ? &columns->bytes : nullptr, &columnsRefused);
    if (columnsRefused)
        removeStoredColumns(*this, key);
    if (progress)
        progress(1.0);
    if (snapshot) {
        // Touched, so that eviction takes the entries used longest ago.
        std::error_code ec;
        fs::last_write_time(file, fs::file_time_type::clock::now(), ec);
    }
    return snapshot;
}

bool SnapshotCache::write(const CacheKey &key, const Snapshot &snapshot) const
{
    if (dir_.empty() || !cacheable(snapshot))
        return false;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec)
        return false;
    const bool written = writeCacheFile(entryPath(key), [&](std::ostream &out) {
        return streamEntry(key, snapshot, [&](std::string_view piece) {
            return static_cast<bool>(out.write(piece.data(), static_cast<std::streamsize>(piece.size())));
        });
    });
    if (written)
        evict();
    return written;
}

bool writeCacheFile(const std::string &path, const std::function<bool(std::ostream &)> &write)
{
    const std::string temp = path + ".tmp" + std::to_string(::getpid());
    bool ok = false;
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        ok = out && write(out) && out.flush();
    }
    std::error_code ec;
    if (ok)
        fs::rename(temp, path, ec);
    if (!ok || ec) {
        fs::remove(temp, ec);
        return false;
    }
    return true;
}

namespace {

// "….mlcache.tmp<PID>" or a side entry's "….mlcache.<kind>.tmp<PID>" whose writer is gone, or
// a day old whatever its PID says (PIDs are reused).
bool isStaleTemporary(const fs::path &path)
{
    const std::string name = path.filename().string();
    const size_t at = name.rfind(".tmp");
    const std::string_view written = std::string_view(name).substr(0, at == std::string::npos ? 0 : at);
    const bool ours = written.ends_with(".mlcache") || fs::path(written).stem().string().ends_with(".mlcache");
    const std::optional<pid_t> pid = ours ? writerOf(name, written) : std::nullopt;
    if (!pid)
        return false;
    std::error_code error;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(path, error);
    return *pid != ::getpid() && ((::kill(*pid, 0) != 0 && errno == ESRCH) || (!error && age > std::chrono::hours(24)));
}

} // namespace

void SnapshotCache::evict() const
{
    std::error_code ec;
    struct Entry {
        fs::path path;
        uint64_t size;
        fs::file_time_type used;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    for (const auto &e : fs::directory_iterator(dir_, ec)) {
        if (isStaleTemporary(e.path())) {
            fs::remove(e.path(), ec); // a writer killed mid-entry (kill -9, power loss) left it
            continue;
        }
        // Entries and the side entries beside them (cache/SideEntry: .answers, .indexes, .columns).
        if (e.path().extension() != ".mlcache" && !e.path().stem().string().ends_with(".mlcache"))
            continue;
        const uint64_t size = e.file_size(ec);
        const auto used = e.last_write_time(ec);
        if (ec)
            continue;
        entries.push_back({e.path(), size, used});
        total += size;
    }
    std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) { return a.used < b.used; });
    for (const Entry &e : entries) {
        if (total <= cap_)
            break;
        if (fs::remove(e.path, ec))
            total -= e.size;
    }
}

} // namespace memlens
