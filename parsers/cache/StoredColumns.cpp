#include "cache/StoredColumns.h"

#include "cache/SnapshotCodec.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace memlens {

namespace {

// Bounded further by largestEntryBytes, as the entries are.
constexpr SideEntryKind kColumns{".columns", "MLCOLUMN", 64ull << 30};

// The columns in the order the entry's decoder asks for them, from where they are.
void putColumns(SectionWriter &out, const Snapshot &snapshot)
{
    encodeSnapshot(snapshot, [&](std::string_view piece, bool column) {
        if (column)
            out.array(piece.data(), piece.size());
    });
}

} // namespace

std::optional<OpenStoredColumns> openStoredColumns(const SnapshotCache &cache, const CacheKey &key)
{
    std::optional<OpenSideEntry> entry = openSideEntry(cache, kColumns, key);
    if (!entry || entry->size > largestEntryBytes(key))
        return std::nullopt;
    const int fd = entry->file.get();
    const uint64_t offset = entry->offset, size = entry->size;
    return OpenStoredColumns{std::move(*entry), FileSectionBytes(fd, offset, size)};
}

bool columnsStored(const SnapshotCache &cache, const CacheKey &key)
{
    return openSideEntry(cache, kColumns, key).has_value();
}

void removeStoredColumns(const SnapshotCache &cache, const CacheKey &key)
{
    std::error_code ec;
    std::filesystem::remove(cache.entryPath(key) + std::string(kColumns.suffix), ec);
}

std::string encodeColumns(const Snapshot &snapshot)
{
    SectionWriter out(0, PieceCompression::Never);
    putColumns(out, snapshot);
    return out.take();
}

bool storeColumns(const SnapshotCache &cache, const CacheKey &key, const Snapshot &snapshot)
{
    if (!cacheable(snapshot))
        return false; // no entry to read them beside

    SectionWriter out(sideEntryPayloadOffset(kColumns, key), PieceCompression::Never);
    putColumns(out, snapshot);
    const bool written =
        writeSideEntry(cache, kColumns, key, [&](const std::function<bool(std::string_view)> &put) { return out.writeTo(put); });
    if (written)
        cache.evict(); // as large as the entry's snapshot in memory
    return written;
}

} // namespace memlens
