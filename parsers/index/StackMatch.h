#pragma once
// Which stacks hold a frame of some kind (an optimizer's file, an attention function), with
// each distinct frame tested once instead of once per allocation.
#include "model/Snapshot.h"

#include <functional>
#include <vector>

namespace memlens {

// Per stack id: whether any of its frames satisfies `frameMatches`.
std::vector<bool> stacksWithFrame(const Snapshot &snapshot, const std::function<bool(const Frame &)> &frameMatches);

} // namespace memlens
