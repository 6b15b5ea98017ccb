#pragma once
// Whether a dump that opens after a gap belongs to the run stitched so far. One run keeps its
// long-lived memory (parameters, optimizer state, a KV cache) across any gap: empty_cache
// releases segments, not allocations. So the later dump holds, among the blocks from before its
// trace, the earlier dump's long-lived blocks at the same address and size, made by the same
// frames. A dump of another run (a restart, another job's file left in the folder) does not,
// though a few of its blocks may sit at the same addresses by chance.
#include "stitch/AllocatorImage.h"

#include <cstdint>

namespace memlens {

// Long-lived: live at the dump's end and made before its trace began (no alloc at that address
// in the trace), or, when the trace reaches back to the start, every block live at the end.
// Sets ImageBlock::longLived in `image`, the dump's final image on `device`.
void markLongLived(AllocatorImage &image, const Snapshot &dump, int device);

// `before`: the run's end image (its stacks in `run`'s ids), long-lived blocks marked;
// `after`: the dump's image where its new entries start (stacks in `dump`'s ids). True when at
// least half the long-lived bytes are in `after` at the same address and size, by the same
// frames where both blocks have them.
bool keepsLongLivedMemory(const Snapshot &run, const AllocatorImage &before, const Snapshot &dump, const AllocatorImage &after);

} // namespace memlens
