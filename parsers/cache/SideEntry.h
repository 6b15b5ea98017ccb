#pragma once
// A file beside a cache entry holding what was worked out from the snapshot (the answers given,
// the devices' indexes and layouts), so that opening or asking again reads it instead of working
// it out.
// Each kind has a suffix and a magic of its own. It is believed only for the same file (the
// entry's key) and the same memlens executable (its size, modification time and inode: another
// build may work it out otherwise); written atomically; read as untrusted, bounded in size.
#include "cache/SnapshotCache.h"
#include "decode/input/UniqueFd.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace memlens {

struct SideEntryKind {
    std::string_view suffix; // after the entry's name: ".answers"
    std::string_view magic;  // 8 bytes
    uint64_t maxBytes;       // larger is not one memlens wrote
};

// An executable as side entries are keyed by (by default the running one); empty when it cannot
// be stat'ed.
std::string executableIdentity(const std::string &path = "/proc/self/exe");

// The file's bytes around `payload`, and the payload back: nothing for bytes that are not a
// side entry of `kind` for `key` by `executable`.
std::string makeSideEntry(const SideEntryKind &kind, const CacheKey &key, std::string_view executable, std::string_view payload);
std::optional<std::string_view> sideEntryPayload(const SideEntryKind &kind, std::string_view bytes, const CacheKey &key,
                                                 std::string_view executable);

// A side entry opened with its header checked: its payload is `size` bytes from `offset` on.
struct OpenSideEntry {
    UniqueFd file;
    uint64_t offset = 0, size = 0;
};

// The side entry kept beside `key`'s entry by this executable, opened, or nothing.
std::optional<OpenSideEntry> openSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key);
// Its payload, read whole.
std::optional<std::string> readSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key);
// Where writeSideEntry puts the payload of `key`'s side entry in its file (after the header).
uint64_t sideEntryPayloadOffset(const SideEntryKind &kind, const CacheKey &key);
// Replaces it; false when it could not be written (nothing half-written stays).
bool writeSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key, std::string_view payload);
// The same, the payload handed over in pieces by `payload` to the function it is given (which
// says false when the file cannot take them, or they come to more than the kind's bound).
using SidePayloadWriter = std::function<bool(const std::function<bool(std::string_view)> &put)>;
bool writeSideEntry(const SnapshotCache &cache, const SideEntryKind &kind, const CacheKey &key, const SidePayloadWriter &payload);

} // namespace memlens
