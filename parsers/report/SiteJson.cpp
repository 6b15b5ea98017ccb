#include "report/SiteJson.h"

#include <nlohmann/json.hpp>

namespace memlens {

void addSiteJson(nlohmann::json &entry, const Snapshot &snapshot, const AllocationSite &site)
{
    entry["site"] = site.site.isNone() && !site.autogradThread ? nlohmann::json(nullptr) : nlohmann::json(siteText(snapshot, site));
    if (const std::string via = viaText(snapshot, site); !via.empty())
        entry["site_via"] = via;
    if (!site.op.empty())
        entry["site_op"] = site.op;
}

} // namespace memlens
