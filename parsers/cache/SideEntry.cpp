#include "cache/SideEntry.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace memlens {

namespace fs = std::filesystem;

namespace {

std::string sidePath(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key)
{
    return cache.entryPath(key) + std::string(kind.suffix);
}

std::string head(const SideEntryKind &kind, const CacheKey &key, std::string_view executable)
{
    std::string out(kind.magic);
    out += cacheKeyBytes(key);
    const auto n = static_cast<uint32_t>(executable.size());
    out.append(reinterpret_cast<const char *>(&n), sizeof n);
    out += executable;
    return out;
}

} // namespace

std::string executableIdentity(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return {};
    return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
           std::to_string(st.st_ino);
}

std::string makeSideEntry(const SideEntryKind &kind, const CacheKey &key, std::string_view executable, std::string_view payload)
{
    return head(kind, key, executable) + std::string(payload);
}

std::optional<std::string_view> sideEntryPayload(const SideEntryKind &kind, std::string_view bytes, const CacheKey &key,
                                                 std::string_view executable)
{
    const std::string expected = head(kind, key, executable);
    if (executable.empty() || bytes.size() > kind.maxBytes || !bytes.starts_with(expected))
        return std::nullopt;
    return bytes.substr(expected.size());
}

std::optional<OpenSideEntry> openSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key)
{
    if (cache.directory().empty())
        return std::nullopt;
    const std::string executable = executableIdentity();
    if (executable.empty())
        return std::nullopt;
    const std::string path = sidePath(cache, kind, key);
    OpenSideEntry entry{UniqueFd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC))};
    struct stat st {};
    if (!entry.file || ::fstat(entry.file.get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > kind.maxBytes)
        return std::nullopt;
    // The header first: another build's or another file's entry is not read whole.
    const std::string expected = head(kind, key, executable);
    std::string bytes(expected.size(), '\0');
    if (static_cast<uint64_t>(st.st_size) < expected.size() ||
        !readAt(entry.file.get(), 0, bytes.data(), bytes.size()) || bytes != expected)
        return std::nullopt;
    std::error_code ec;
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec); // used: evicted last
    entry.offset = expected.size();
    entry.size = static_cast<uint64_t>(st.st_size) - expected.size();
    return entry;
}

std::optional<std::string> readSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key)
{
    const std::optional<OpenSideEntry> entry = openSideEntry(cache, kind, key);
    if (!entry)
        return std::nullopt;
    std::string payload(static_cast<size_t>(entry->size), '\0');
    if (!readAt(entry->file.get(), entry->offset, payload.data(), payload.size()))
        return std::nullopt;
    return payload;
}

uint64_t sideEntryPayloadOffset(const SideEntryKind &kind, const CacheKey &key)
{
    return head(kind, key, executableIdentity()).size();
}

bool writeSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key, std::string_view payload)
{
    return writeSideEntry(cache, kind, key, [&](const std::function<bool(std::string_view)> &put) { return put(payload); });
}

bool writeSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key, const SidePayloadWriter &payload)
{
    const std::string executable = executableIdentity();
    if (cache.directory().empty() || executable.empty())
        return false;
    std::error_code ec;
    fs::create_directories(cache.directory(), ec);
    return writeCacheFile(sidePath(cache, kind, key), [&](std::ostream &out) {
        uint64_t written = 0;
        auto put = [&](std::string_view bytes) {
            written += bytes.size();
            return written <= kind.maxBytes && static_cast<bool>(out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())));
        };
        return put(head(kind, key, executable)) && payload(put);
    });
}

} // namespace memlens
