#pragma once
// Which file a cache entry or a session was made from: size and a 64-bit FNV-1a over the file's
// first and last MiB ("SIZE-HASH"), cheap even for 1 GB files and enough to notice a different
// file at the same path. "" when the file cannot be read.
#include <cstdint>
#include <string>
#include <string_view>

namespace memlens {

// 64-bit FNV-1a of `bytes`, continuing from `hash` (start from the offset basis): the one hash
// of file checksums, cache entry names and export part names.
inline constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
uint64_t fnv1a(std::string_view bytes, uint64_t hash = kFnvOffsetBasis);

std::string snapshotChecksum(const std::string &path);

} // namespace memlens
