#include "report/SummaryMarkdown.h"

#include "attribution/AllocationSite.h"
#include "model/ByteFormat.h"

namespace memlens {

std::string summaryMarkdown(const Snapshot &snapshot, const DeviceSummary &s, const std::string &fileName)
{
    std::string md = "**" + fileName + "** (" + s.name + ")\n\n";
    md += "- Peak active: **" + formatBytes(s.peakActiveBytes) + "**" + (s.peakIndex ? " at event " + std::to_string(s.peakIndex->index()) : "") + "\n";
    md += "- Peak reserved: " + formatBytes(s.peakReservedBytes) + "\n";
    for (const OomDiagnosis &o : s.ooms)
        md += "- OOM at event " + std::to_string(o.event.index()) + ": " + formatBytes(o.requested) + " requested, " + formatBytes(o.reservedFree) +
              " free in reserved segments, largest free block " + formatBytes(o.largestFreeBlock) + " → **" + o.verdict() + "**\n";
    std::string categories;
    for (int c = 0; c < kCategoryCount; ++c) {
        if (const uint64_t bytes = s.categoryBytesAtPeak[static_cast<size_t>(c)])
            categories += (categories.empty() ? "" : ", ") + std::string(categoryLabel(static_cast<Category>(c))) + " " + formatBytes(bytes);
    }
    if (!categories.empty())
        md += "- At the peak: " + categories + "\n";
    md += "\n| size | category | allocated at |\n|---:|---|---|\n";
    for (size_t i = 0; i < s.topLiveAtPeak.size() && i < 5; ++i) {
        const LiveBlockInfo &l = s.topLiveAtPeak[i];
        md += "| " + formatBytes(l.size) + " | " + std::string(categoryLabel(l.category)) + " | `" +
              siteLine(snapshot, allocationSite(snapshot, l.stack, l.autogradThread)) + "` |\n";
    }
    return md;
}

} // namespace memlens
