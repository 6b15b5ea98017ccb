#include "replay/ReplayAdmission.h"

namespace memlens {

namespace {

bool hasEntries(const Snapshot &snapshot, int device)
{
    return device >= 0 && size_t(device) < snapshot.traces.size() && snapshot.traces[size_t(device)].count() > 0;
}

} // namespace

std::optional<std::string> whyNotReplayable(const Snapshot &snapshot)
{
    bool entries = false;
    for (int d : snapshot.devices())
        entries = entries || hasEntries(snapshot, d);
    if (snapshot.categories || !entries)
        return "no allocator trace to replay (a memory-timeline file, or a snapshot without trace entries)";
    if (snapshot.facts.format == FileFormat::ChromeTrace)
        return "a profiler trace records allocations, not the allocator's segments; replay needs a snapshot";
    return std::nullopt;
}

std::optional<std::string> whyNotReplayable(const Snapshot &snapshot, int device)
{
    if (std::optional<std::string> file = whyNotReplayable(snapshot))
        return file;
    if (!hasEntries(snapshot, device))
        return "device " + std::to_string(device) + " has no trace entries";
    return std::nullopt;
}

std::vector<int> replayableDevices(const Snapshot &snapshot)
{
    std::vector<int> out;
    for (int d : snapshot.devices()) {
        if (!whyNotReplayable(snapshot, d))
            out.push_back(d);
    }
    return out;
}

} // namespace memlens
