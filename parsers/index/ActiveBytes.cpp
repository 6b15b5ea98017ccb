#include "index/ActiveBytes.h"

#include "memory/PrefaultAhead.h"

#include <algorithm>

namespace memlens {

bool ActiveBytes::prefault(size_t n)
{
    return memlens::prefault(offsets_.begin(), n * sizeof(uint32_t));
}

void ActiveBytes::flush()
{
    const auto [lo, hi] = std::minmax_element(pending_, pending_ + fill_);
    Block block{*lo, kNotWide};
    // In unsigned arithmetic: the span of two int64 values can exceed INT64_MAX.
    if (static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo) > UINT32_MAX) {
        block.wide = static_cast<uint32_t>(wide_.size());
        for (size_t i = 0; i < fill_; ++i) {
            wide_.push_back(pending_[i]);
            offsets_.push_back(0);
        }
    } else {
        for (size_t i = 0; i < fill_; ++i)
            offsets_.push_back(static_cast<uint32_t>(static_cast<uint64_t>(pending_[i]) - static_cast<uint64_t>(*lo)));
    }
    blocks_.push_back(block);
    fill_ = 0;
}

} // namespace memlens
