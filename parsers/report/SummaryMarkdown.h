#pragma once
// A short Markdown summary of one device's key figures, for a chat or a bug report.
#include "figures/SnapshotSummary.h"

#include <string>

namespace memlens {

std::string summaryMarkdown(const Snapshot &snapshot, const DeviceSummary &summary, const std::string &fileName);

} // namespace memlens
