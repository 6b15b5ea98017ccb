#pragma once
// Strings, frames and stacks are stored once and referred to by 32-bit ids, so a trace of
// millions of entries that repeat the same few thousand call stacks stays small.
#include "model/Ids.h"
#include "model/PodArray.h"

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memlens {

class StringTable {
public:
    StringTable();
    StringId intern(std::string_view text);
    std::string_view at(StringId id) const { return strings_[id.index()]; }
    size_t size() const { return strings_.size(); }
    static constexpr StringId kEmpty{0}; // id of ""
    // The strings in id order; the lookup index follows from them.
    bool operator==(const StringTable &other) const { return strings_ == other.strings_; }

private:
    std::deque<std::string> strings_; // deque: element addresses stay valid for the map's keys
    std::unordered_map<std::string_view, StringId> ids_;
};

struct Frame {
    StringId name = StringTable::kEmpty;
    StringId file = StringTable::kEmpty;
    int64_t line = 0;
    bool operator==(const Frame &) const = default;
};

class FrameTable {
public:
    FrameId intern(const Frame &frame);
    const Frame &at(FrameId id) const { return frames_[id.index()]; }
    size_t size() const { return frames_.size(); }
    bool operator==(const FrameTable &other) const { return frames_ == other.frames_; } // the index follows

private:
    struct Hash {
        size_t operator()(const Frame &f) const;
    };
    std::vector<Frame> frames_;
    std::unordered_map<Frame, FrameId, Hash> ids_;
};

// Stack id 0 is the empty stack (no frames recorded). Frames are innermost first.
class StackTable {
public:
    StackTable();
    StackId intern(std::span<const FrameId> frameIds);
    std::span<const FrameId> at(StackId id) const
    {
        return {frameIds_.data() + offsets_[id.index()], offsets_[id.index() + 1] - offsets_[id.index()]};
    }
    size_t size() const { return offsets_.size() - 1; }
    static constexpr StackId kEmpty{0};
    bool operator==(const StackTable &other) const { return frameIds_ == other.frameIds_ && offsets_ == other.offsets_; } // the index follows

private:
    // Open addressing over a power-of-two table at most half full: a slot holds a stack's id + 1
    // (0: empty) beside its hash's lower half, so that a probe is one load and frames are compared
    // only where the hashes agree. A node-based multimap cost a cache miss or two per lookup, and
    // a decode looks up every fresh frame list (millions).
    struct Slot {
        uint32_t idPlusOne;
        uint32_t tag;
    };
    static uint64_t hashOf(std::span<const FrameId> frameIds);
    size_t home(uint64_t hash) const { return static_cast<size_t>((hash * 0x9E3779B97F4A7C15ull) >> shift_); }
    void grow();

    PodArray<FrameId> frameIds_;
    PodArray<uint32_t> offsets_;
    PodArray<Slot> slots_; // size a power of two; zero-filled when made
    int shift_ = 64;       // 64 - log2(slots)
};

} // namespace memlens
