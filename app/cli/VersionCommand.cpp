#include "cli/VersionCommand.h"

#include "cache/SnapshotCache.h"

#include <QtGlobal>
#include <iostream>
#include <zstd.h>

namespace memlens {

int runVersionCommand()
{
    std::cout << "memlens " << MEMLENS_VERSION << "\n"
              << "Qt " << qVersion() << ", zstd " << ZSTD_versionString() << ", snapshot cache format " << cacheFormatVersion() << "\n";
    return 0;
}

} // namespace memlens
