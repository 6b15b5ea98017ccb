#pragma once
// summary --json's `at` object of a MomentAnswer: what live_at and allocator_state print from.
#include "questions/LiveAtQuestion.h"

#include <nlohmann/json.hpp>

namespace memlens {

nlohmann::json momentJson(const MomentAnswer &answer);

} // namespace memlens
