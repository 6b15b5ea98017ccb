#include "stitch/StitchedReport.h"

#include "model/ByteFormat.h"
#include "report/OptionalJson.h"
#include "report/JsonText.h"

#include <sstream>

namespace memlens {

namespace {

using nlohmann::json;

} // namespace

std::string stitchedSummaryJson(const StitchedRun &run, const std::string &name, int rank, const std::vector<DeviceReport> &devices)
{
    return jsonText(stitchedSummaryJsonObject(run, name, rank, devices), 2) + "\n";
}

json stitchedSummaryJsonObject(const StitchedRun &run, const std::string &name, int rank, const std::vector<DeviceReport> &devices)
{
    json root = summaryJsonObject(*run.snapshot, name, devices);
    auto dumpList = [](const std::vector<StitchedDump> &list) {
        json dumps = json::array();
        for (const StitchedDump &d : list)
            dumps.push_back({{"file", d.file},
                             {"step", optionalJson(d.step)},
                             {"entries", d.entries},
                             {"new_entries", d.newEntries},
                             {"first_time_us", optionalJson(d.firstTimeUs)},
                             {"last_time_us", optionalJson(d.lastTimeUs)}});
        return dumps;
    };
    json gaps = json::array();
    for (const StitchGap &g : run.gaps)
        gaps.push_back({{"after_file", g.afterFile},
                        {"before_file", g.beforeFile},
                        {"device", g.device},
                        {"from_time_us", g.fromUs},
                        {"to_time_us", g.toUs},
                        {"bridging_entries", g.bridgingEntries}});
    root["rank"] = rank;
    root["dumps"] = dumpList(run.dumps);
    root["left_out"] = dumpList(run.leftOut);
    root["gaps"] = gaps;
    root["stitch_warnings"] = run.warnings;
    return root;
}

std::string stitchedSummaryText(const StitchedRun &run, const std::string &name, const std::vector<DeviceReport> &devices)
{
    std::ostringstream out;
    out << name << ": " << run.dumps.size() << " dumps stitched into one run, " << run.gaps.size() << (run.gaps.size() == 1 ? " gap\n" : " gaps\n");
    for (const StitchedDump &d : run.dumps) {
        out << "  " << d.file << ": " << groupDigits(d.entries) << " entries, " << groupDigits(d.newEntries) << " new";
        if (d.step)
            out << ", step " << *d.step;
        out << '\n';
    }
    for (const StitchGap &g : run.gaps)
        out << "  Gap between " << g.afterFile << " and " << g.beforeFile << ": " << formatDuration(g.toUs - g.fromUs) << " without entries\n";
    for (const std::string &w : run.warnings)
        out << "  Warning: " << w << '\n';
    out << '\n' << summaryText(*run.snapshot, name, devices);
    return out.str();
}

} // namespace memlens
