#include "replay/ReplayReport.h"

#include "replay/ReplayVerdict.h"

#include "model/ByteFormat.h"
#include "report/OptionalJson.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace memlens {

std::optional<size_t> firstSegmentDifference(const ReplayResult &r)
{
    const auto &a = r.recorded.segmentAllocs, &b = r.predicted.segmentAllocs;
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        if (a[i] != b[i])
            return i;
    }
    if (a.size() != b.size())
        return n;
    return std::nullopt;
}

namespace {

nlohmann::json runJson(const ReplayRun &run, bool predicted)
{
    nlohmann::json j{{"peak_reserved_bytes", run.peakReservedBytes}, {"segment_allocs", run.segmentAllocs.size()}};
    if (predicted) {
        j["peak_index"] = optionalJson(run.peakIndex);
        j["oom_at"] = optionalJson(run.oomAt);
        j["reserved_at_end_bytes"] = run.reservedAtEndBytes;
    } else {
        j["oom_at"] = optionalJson(run.oomAt);
    }
    return j;
}

} // namespace

nlohmann::json replayJson(const std::string &file, const ReplayResult &r)
{
    const std::optional<size_t> diff = firstSegmentDifference(r);
    return nlohmann::json{{"file", file},
                          {"device", r.device},
                          {"alloc_conf", r.config.text()},
                          {"capacity_bytes", optionalJson(r.capacity.bytes)},
                          {"capacity_how", r.capacity.how},
                          {"from_first_entry", r.fromFirstEntry},
                          {"start_reserved_bytes", r.startReservedBytes},
                          {"recorded", runJson(r.recorded, false)},
                          {"predicted", runJson(r.predicted, true)},
                          {"segment_allocs_first_difference", optionalJson(diff)},
                          {"notes", r.notes}};
}

std::string replayText(const std::string &file, const ReplayResult &r)
{
    std::ostringstream out;
    const std::string conf = r.config.text();
    out << file << " (cuda:" << r.device << ") replayed with " << (conf.empty() ? "torch's default allocator settings" : conf) << '\n';
    out << "  capacity: " << (r.capacity.bytes ? formatBytes(*r.capacity.bytes) + " - " + r.capacity.how : r.capacity.how) << '\n';
    out << "  recorded:  peak reserved " << formatBytes(r.recorded.peakReservedBytes) << ", " << r.recorded.segmentAllocs.size() << " segment allocations"
        << (r.recorded.oomAt ? ", OOM at event " + std::to_string(r.recorded.oomAt->index()) : std::string()) << '\n';
    out << "  predicted: peak reserved " << formatBytes(r.predicted.peakReservedBytes);
    if (r.predicted.peakIndex)
        out << " at event " << r.predicted.peakIndex->index();
    out << ", " << r.predicted.segmentAllocs.size() << " segment allocations, " << formatBytes(r.predicted.reservedAtEndBytes) << " reserved at the end\n";
    out << "  " << replayVerdict(r) << '\n';
    for (const std::string &note : r.notes)
        out << "  note: " << note << '\n';
    return out.str();
}

} // namespace memlens
