#pragma once
// The PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF) settings that decide reserved memory,
// parsed as torch's CUDAAllocatorConfig parses them (c10/cuda/CUDAAllocatorConfig.cpp).
#include "model/Snapshot.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace memlens {

struct AllocatorConfig {
    bool expandableSegments = false;
    uint64_t maxSplitSize = std::numeric_limits<uint64_t>::max(); // max_split_size_mb, in bytes
    double garbageCollectionThreshold = 0.0;
    // max_non_split_rounding_mb: how much larger than a request of max_split_size or more a
    // cached block it takes whole may be (torch's default: kLargeBuffer, 20 MiB).
    uint64_t maxNonSplitRounding = 20ull << 20;
    // per_process_memory_fraction: the share of the device the allocator may reserve; a capacity
    // once the device's total is known (--gpu).
    std::optional<double> perProcessMemoryFraction;
    // throw_on_cudamalloc_oom: fail before cudaMalloc rather than after it; the same OOM event.
    bool throwOnCudaMallocOom = false;
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
    // The most the allocator may reserve on a device of `deviceTotal` bytes under
    // per_process_memory_fraction, as torch computes it; none without a fraction.
    std::optional<uint64_t> fractionCapacity(uint64_t deviceTotal) const;
    // per_process_memory_fraction as text, the shortest that reads back the same ("" without one).
    std::string fractionText() const;
};

} // namespace memlens
