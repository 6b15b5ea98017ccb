#include "index/ActiveBytes.h"

#include "memory/PrefaultAhead.h"

#include <algorithm>
#include <stdexcept>

namespace memlens {

bool ActiveBytes::prefault(size_t from, size_t count)
{
    return faultInForWriter(offsets_.begin() + from, count * sizeof(uint32_t));
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

ActiveBytes ActiveBytes::fromParts(size_t n, PodArray<uint32_t> offsets, PodArray<Block> blocks, PodArray<int64_t> wide)
{
    if (offsets.size() != n || blocks.size() != (n + kBlock - 1) / kBlock)
        throw std::invalid_argument("active bytes of another trace");
    for (size_t b = 0; b < blocks.size(); ++b) {
        const size_t entries = std::min(kBlock, n - b * kBlock);
        if (blocks[b].wide != kNotWide && (blocks[b].wide > wide.size() || wide.size() - blocks[b].wide < entries))
            throw std::invalid_argument("active bytes past their wide values");
    }
    ActiveBytes active;
    active.offsets_ = std::move(offsets);
    active.blocks_ = std::move(blocks);
    active.wide_ = std::move(wide);
    return active;
}

} // namespace memlens
