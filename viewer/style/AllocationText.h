#pragma once
// Human-readable descriptions of one allocation, shared by tooltips and the details panel.
#include "pipeline/Document.h"

#include <QString>

namespace memlens {

// Short multi-line text for a tooltip: size, address, stream, lifetime, top frames.
QString allocationTooltip(const Document &doc, const DeviceIndex &index, AllocationId allocation, int frames = 4);
// Rich text with the full stack (noise frames hidden unless `allFrames`).
QString allocationDetailsHtml(const Document &doc, const DeviceIndex &index, AllocationId allocation, bool allFrames);
QString eventLabel(const DeviceIndex &index, EventId event);
// "start" before the first entry, else its last entry's label.
QString pointLabel(const DeviceIndex &index, TracePoint at);
// Who allocated it (attribution/AllocationSite): "model.py:340:forward → torch.nn.functional.linear, aten::mm".
QString siteLabel(const Snapshot &snapshot, StackId stack, bool autogradThread = false);
// A string of the snapshot's string table (labels, metadata, frame names), as the UI shows it.
QString snapshotText(const Snapshot &snapshot, StringId id);

} // namespace memlens
