#pragma once
// An allocation's site in the JSON reports (summary, MCP): `site` (a frame string, null when
// only machinery or nothing was recorded), and `site_via` / `site_op` where known. `frames`
// stays whole beside it.
#include "attribution/AllocationSite.h"

#include <nlohmann/json_fwd.hpp>

namespace memlens {

void addSiteJson(nlohmann::json &entry, const Snapshot &snapshot, const AllocationSite &site);

} // namespace memlens
