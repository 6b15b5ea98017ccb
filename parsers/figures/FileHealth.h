#pragma once
// Whether a trace reaches back to the start of recording, and what in a file that decodes is
// still inconsistent. Both are facts about one device, shown by the summary (JSON `truncated`,
// `warnings[]`) and the summary page.
#include "index/DeviceIndex.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memlens {

struct TraceCoverage {
    // The trace does not reach back to the start of recording: the ring buffer (max_entries)
    // dropped older entries, or recording began while memory was in use.
    bool truncated = false;
    std::optional<int64_t> coversFromUs; // time of the first entry
    std::vector<std::string> evidence;   // why `truncated`, one sentence each
    // Allocations alive before the first entry ("ghost blocks"): no alloc entry, so no time of
    // birth and no stack unless the final snapshot lists their block with one.
    uint64_t ghostBlocks = 0;
    uint64_t ghostBytes = 0;
};

// Ring-buffer sizes people set (torch's examples and torchtitan use 100,000 and 1,000,000).
bool looksLikeRingSize(uint64_t entries);

// What a file recorded without any stack cannot tell (its `no_stacks` warning says why): the
// categories and the setup the advice reads are this, never "unknown" or "none".
inline constexpr std::string_view kNotRecordedNoStacks = "not recorded: the file has no stacks";
inline constexpr std::string_view kNoStacksWarning = "no_stacks"; // FileWarning::kind

struct FileWarning {
    std::string kind;    // a stable key, e.g. "block_outside_segment"
    std::string message; // one sentence with the first example
    uint64_t count = 0;
};

struct FileHealth {
    TraceCoverage coverage;
    // Checks of the final segments and blocks and of the trace against itself. Frees of
    // allocations older than the trace are not warned of (they are the coverage's evidence);
    // freeing an address twice is.
    std::vector<FileWarning> warnings;
};

// Both at once: they share the one sweep that tells frees older than the trace from double frees.
FileHealth fileHealth(const Snapshot &snapshot, const DeviceIndex &index);

} // namespace memlens
