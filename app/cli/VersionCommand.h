#pragma once
// `memlens --version`: the version and what decides compatibility (Qt, zstd, the cache's format).
namespace memlens {

int runVersionCommand();

} // namespace memlens
