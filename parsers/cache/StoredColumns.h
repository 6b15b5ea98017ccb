#pragma once
// A snapshot's large event columns as they are, beside its cache entry (a side entry: the same
// file and executable only), each in pieces that start where a page of the file starts. Reading
// the entry again maps them into the columns instead of decompressing the entry's frames into
// fresh memory, whose pages this project's VM makes dear (docs/bench.md, issue 66). About the
// entries' bytes, as they are in memory: kept by the window's load, which reopens files, not by
// the command line, whose answers are kept instead (StoredAnswers).
#include "cache/IndexSections.h"
#include "cache/SideEntry.h"

#include <optional>

namespace memlens {

// The columns' side entry, open, its bytes for PayloadReader.
struct OpenStoredColumns {
    OpenSideEntry entry;
    FileSectionBytes bytes;
};

std::optional<OpenStoredColumns> openStoredColumns(const SnapshotCache &cache, const CacheKey &key);
// Whether there is one to open (its header checked, not its columns).
bool columnsStored(const SnapshotCache &cache, const CacheKey &key);
// Gone, as one that was refused is: the next load that keeps columns writes it again.
void removeStoredColumns(const SnapshotCache &cache, const CacheKey &key);
// The payload storeColumns writes, as it is laid out at the start of a file (the fuzzer's).
std::string encodeColumns(const Snapshot &snapshot);
// False when it could not be written (nothing half-written stays).
bool storeColumns(const SnapshotCache &cache, const CacheKey &key, const Snapshot &snapshot);

} // namespace memlens
