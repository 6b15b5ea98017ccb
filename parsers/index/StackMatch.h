#pragma once
// Which stacks hold a frame of some kind (an optimizer's file, an attention function), with
// each distinct frame tested once instead of once per allocation.
#include "model/IdVector.h"
#include "model/Snapshot.h"

#include <functional>
#include <vector>

namespace memlens {

// Per stack id: whether any of its frames satisfies `frameMatches`.
IdVector<StackId, bool> stacksWithFrame(const Snapshot &snapshot, const std::function<bool(const Frame &)> &frameMatches);

} // namespace memlens
