#pragma once
// Which file a cache entry or a session was made from: size and a 64-bit FNV-1a over the file's
// first and last MiB ("SIZE-HASH"), cheap even for 1 GB files and enough to notice a different
// file at the same path. "" when the file cannot be read.
#include <string>

namespace memlens {

std::string snapshotChecksum(const std::string &path);

} // namespace memlens
