#pragma once
// `--gpu PRESET | --capacity BYTES` (advise, replay, summary), admitted by the questions' rule
// (questions/CapacityRequest).
#include "options/CommandLine.h"
#include "questions/CapacityRequest.h"

namespace memlens {

// resolveCapacity over --gpu and --capacity; throws QuestionError.
CapacityRequest capacityOption(const CommandLine &cl);

} // namespace memlens
