#pragma once
// The one wording of "does it fit": what a replay found at its capacity, and the room a fitting
// answer leaves, for the command line's replay, the window's What-if and the advice's fixes alike
// (the What-if said "No OOM within 5.99 GiB" where the fix list said "44.0 MiB to spare (0.7 %),
// within the error of what priced it").
#include "replay/Replay.h"

#include <cstdint>
#include <string>

namespace memlens {

// A replayed setting is within its error when it leaves less than this share of the capacity.
inline constexpr double kReplayError = 0.01;
// Said of such a setting when the recorded trace ends at its OOM.
inline constexpr const char *kEndsAtOomCaveat = "the trace ends at the OOM, so what the program did after it is not in the replay";

// "44.0 MiB to spare (0.7 % of the capacity)", with ", within the error of what priced it".
std::string spareText(uint64_t margin, uint64_t capacity, bool withinError);

// The last line's word on it: "OOM at event 6075", "no OOM within 5.99 GiB: 44.0 MiB to spare
// (0.7 % of the capacity), within the error of what priced it; the trace ends at the OOM, so what
// the program did after it is not in the replay", or "no OOM (no capacity known)".
std::string replayVerdict(const ReplayResult &r);

} // namespace memlens
