#include "cli/CommandSnapshot.h"

#include "model/LoadError.h"

#include <iostream>

namespace memlens {

std::optional<CachedSnapshot> loadForCommand(const std::string &file, bool noCache)
{
    const SnapshotCache cache;
    try {
        return loadSnapshotCached(file, {}, noCache ? nullptr : &cache);
    } catch (const LoadError &e) {
        std::cerr << "memlens: " << e.what() << '\n';
        return std::nullopt;
    }
}

} // namespace memlens
