#pragma once
// MCP's allocator_state: the caching allocator's figures at a moment (segments, reserved,
// allocated, free, the largest free block), answered as live_at is (LiveAtQuestion's request
// and answer) with one live block.
#include "questions/LiveAtQuestion.h"

#include <nlohmann/json.hpp>
#include <string>

namespace memlens {

// Throws QuestionError as answerMoment does.
MomentAnswer answerAllocatorState(const std::string &file, std::shared_ptr<const Snapshot> snapshot, MomentRequest request);
MomentAnswer answerAllocatorState(const IndexedDevice &device, MomentRequest request);

// {"file", "device", "at", "event", "allocator": summary's `at.allocator`}, and one line of that
// object.
nlohmann::json allocatorStateJson(const MomentAnswer &answer);
std::string allocatorStateBrief(const MomentAnswer &answer);

} // namespace memlens
