#pragma once
// `memlens summary DIR --rank R --stitch`: the dumps and gaps of a stitched run, then the
// summary of the run as `summary FILE` gives it.
#include "report/SummaryReport.h"
#include "stitch/DumpStitcher.h"

#include <string>
#include <vector>

namespace memlens {

// `name`: how the run is named in the output ("DIR rank R").
nlohmann::json stitchedSummaryJsonObject(const StitchedRun &run, const std::string &name, int rank, const std::vector<DeviceReport> &devices);
std::string stitchedSummaryJson(const StitchedRun &run, const std::string &name, int rank, const std::vector<DeviceReport> &devices);
std::string stitchedSummaryText(const StitchedRun &run, const std::string &name, const std::vector<DeviceReport> &devices);

} // namespace memlens
