#pragma once
// The PYTORCH_CUDA_ALLOC_CONF settings that decide reserved memory, parsed as torch's
// CUDAAllocatorConfig parses them (c10/cuda/CUDAAllocatorConfig.cpp).
#include "model/Snapshot.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace memlens {

struct AllocatorConfig {
    bool expandableSegments = false;
    uint64_t maxSplitSize = std::numeric_limits<uint64_t>::max(); // max_split_size_mb, in bytes
    double garbageCollectionThreshold = 0.0;
    // roundup_power2_divisions per power-of-two interval from 1 MiB (index 0) to 32 GiB and up.
    std::array<uint64_t, 16> roundupDivisions{};

    // CONF in PYTORCH_CUDA_ALLOC_CONF syntax ("expandable_segments:True,max_split_size_mb:128");
    // release_lock_on_cudamalloc and the pinned-memory keys are accepted and ignored. Throws
    // std::invalid_argument naming the bad key or value.
    static AllocatorConfig parse(const std::string &conf);
    // The setting a snapshot recorded (allocator_settings), torch's defaults where it says nothing.
    static AllocatorConfig recorded(const Snapshot &snapshot);
    // The settings as PYTORCH_CUDA_ALLOC_CONF text, the defaults left out.
    std::string text() const;

    uint64_t divisionsFor(uint64_t size) const;
};

} // namespace memlens
