#pragma once
// The subcommands' way of opening a snapshot: through the cache unless --no-cache, and on
// failure the one-line error on stderr.
#include "cache/CachedSnapshot.h"

#include <optional>
#include <string>

namespace memlens {

// Empty when the file could not be read (the error is printed; the command exits with 1).
std::optional<CachedSnapshot> loadForCommand(const std::string &file, bool noCache);

} // namespace memlens
