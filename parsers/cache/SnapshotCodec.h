#pragma once
// The decoded snapshot as bytes, for the cache: columns as they are in memory, intern tables
// as their contents. Reading it back trusts nothing: every count is checked against the bytes
// left before anything is allocated, and every id against the table it refers to.
#include "model/Snapshot.h"

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memlens {

class CacheFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Whether a snapshot can be cached (memory-timeline files, whose content is a category table,
// are small and not worth it).
bool cacheable(const Snapshot &snapshot);
// Hands the encoding to `sink` piece by piece (no copy of the columns is made); returns the
// number of bytes. With an empty sink it only counts them.
uint64_t encodeSnapshot(const Snapshot &snapshot, const std::function<void(std::string_view)> &sink);
std::string encodeSnapshot(const Snapshot &snapshot);
// Throws CacheFormatError for anything that is not a whole, consistent snapshot.
std::unique_ptr<Snapshot> decodeSnapshot(std::string_view bytes);
// The same, pulling `size` bytes from `read(buffer, n)`, which fills exactly n bytes or throws
// CacheFormatError.
std::unique_ptr<Snapshot> decodeSnapshot(uint64_t size, const std::function<void(char *, size_t)> &read);

} // namespace memlens
