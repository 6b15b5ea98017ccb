#include "replay/ReplayVerdict.h"

#include "model/ByteFormat.h"

#include <cstdio>

namespace memlens {

std::string spareText(uint64_t margin, uint64_t capacity, bool withinError)
{
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f %%", capacity ? 100.0 * double(margin) / double(capacity) : 0.0);
    return formatBytes(margin) + " to spare (" + percent + " of the capacity)" + (withinError ? ", within the error of what priced it" : "");
}

std::string replayVerdict(const ReplayResult &r)
{
    if (r.predicted.oomAt)
        return "OOM at event " + std::to_string(r.predicted.oomAt->index());
    if (!r.capacity.bytes)
        return "no OOM (no capacity known)";
    const uint64_t capacity = *r.capacity.bytes;
    const uint64_t margin = capacity > r.predicted.peakReservedBytes ? capacity - r.predicted.peakReservedBytes : 0;
    const bool thin = double(margin) < kReplayError * double(capacity);
    std::string text = "no OOM within " + formatBytes(capacity) + ": " + spareText(margin, capacity, thin);
    if (thin && r.recorded.oomAt)
        text += std::string("; ") + kEndsAtOomCaveat;
    return text;
}

} // namespace memlens
