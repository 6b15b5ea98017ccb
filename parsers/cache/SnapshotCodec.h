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

// Where decodeSnapshot's bytes come from.
class PayloadSource {
public:
    virtual ~PayloadSource() = default;
    // Fills exactly n bytes or throws CacheFormatError.
    virtual void read(char *into, size_t n) = 0;
    // A large column, which the encoding hands over as a piece of its own (see encodeSnapshot):
    // it may be filled later, even on another thread, but before settle() returns. `ownMapping`:
    // `into` is page-aligned in a mapping of the column's own (PodArray), where a file's pages may go.
    virtual void readColumn(char *into, size_t n, bool ownMapping)
    {
        static_cast<void>(ownMapping);
        read(into, n);
    }
    // Every column asked for is in place; throws CacheFormatError when one could not be read.
    virtual void settle() {}
    // No column is written any more (the decoder gave up and frees them).
    virtual void abandon() {}
};

// Event columns of at least this many bytes are pieces of their own in the encoding.
constexpr size_t kColumnPieceBytes = 64 << 10;

// Whether a snapshot can be cached (memory-timeline files, whose content is a category table,
// are small and not worth it).
bool cacheable(const Snapshot &snapshot);
// Hands the encoding to `sink` piece by piece (no copy of the columns is made); returns the
// number of bytes. With an empty sink it only counts them. `column` marks a large event column
// (kColumnPieceBytes or more), which the decoder asks for with readColumn().
using EncodingSink = std::function<void(std::string_view piece, bool column)>;
uint64_t encodeSnapshot(const Snapshot &snapshot, const EncodingSink &sink);
std::string encodeSnapshot(const Snapshot &snapshot);
// Throws CacheFormatError for anything that is not a whole, consistent snapshot.
std::unique_ptr<Snapshot> decodeSnapshot(std::string_view bytes);
// The same, pulling `size` bytes from `source`.
std::unique_ptr<Snapshot> decodeSnapshot(uint64_t size, PayloadSource &source);

} // namespace memlens
