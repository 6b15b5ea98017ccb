#include "document/SessionBinding.h"

#include "decode/input/FileChecksum.h"
#include "document/DocumentView.h"
#include "state/ViewState.h"
#include "notes/NoteSet.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentsPage.h"
#include "segments/WhatIfPanel.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "timeline/TimelineView.h"

#include <QLineEdit>

namespace memlens {

Session captureSession(const DocumentView &view)
{
    const ViewState &state = *view.state();
    Session s;
    s.snapshotPath = view.path().toStdString();
    s.snapshotChecksum = snapshotChecksum(s.snapshotPath);
    s.snapshotSize = std::stoull(s.snapshotChecksum.empty() ? "0" : s.snapshotChecksum.substr(0, s.snapshotChecksum.find('-')));
    s.device = state.device();
    s.page = std::string(pageName(view.currentPageKind()));
    s.timeAxis = state.timeAxis();
    s.color = std::string(colorModeName(state.colorMode()));
    s.visibleFirst = state.visibleRange().first;
    s.visibleLast = state.visibleRange().last;
    if (const std::optional<EventId> e = state.selectedEvent())
        s.selectedEvent = *e;
    if (!state.selectedAllocation().isNone())
        s.selectedAllocation = state.selectedAllocation();
    s.segmentBytesPerRow = view.segments()->map()->bytesPerRow();
    const CallTreeOptions o = view.stacks()->options();
    const FlameGraphWidget *flame = view.stacks()->flameGraph();
    s.stacks = StacksViewState{o.bottomUp, o.hideNoise, o.pythonOnly, o.foldRecursion, std::string(kStackGroupingNames.name(o.grouping)),
                               view.stacks()->allocatedInRange(), flame->pathOf(flame->zoomedNode()).toStdString()};
    if (const QString search = view.timeline()->searchField()->text(); !search.isEmpty())
        s.search = search.toStdString();
    if (state.whatIf())
        s.whatIf = state.whatIf()->config.text();
    s.notes = view.notes()->toJson();
    return s;
}

void applySession(DocumentView &view, const Session &s)
{
    ViewState &state = *view.state();
    if (!view.document() || !view.document()->device(s.device))
        return;
    state.setDevice(s.device);
    view.notes()->setFromJson(s.notes);
    state.setTimeAxis(s.timeAxis);
    if (const auto mode = colorModeFromName(s.color))
        state.setColorMode(*mode);
    if (const auto page = pageFromName(s.page))
        view.showPage(*page);
    if (s.selectedEvent)
        state.setSelectedEvent(*s.selectedEvent);
    if (s.selectedAllocation)
        state.setSelectedAllocation(*s.selectedAllocation);
    if (s.visibleFirst && s.visibleLast && *s.visibleLast > *s.visibleFirst)
        state.setVisibleRange({*s.visibleFirst, *s.visibleLast});
    if (s.segmentBytesPerRow)
        view.segments()->map()->setBytesPerRow(*s.segmentBytesPerRow);
    if (s.stacks) {
        CallTreeOptions o = view.stacks()->options();
        o.bottomUp = s.stacks->bottomUp;
        o.hideNoise = s.stacks->hideNoise;
        o.pythonOnly = s.stacks->pythonOnly;
        o.foldRecursion = s.stacks->foldRecursion;
        o.grouping = kStackGroupingNames.find(s.stacks->groupBy).value_or(StackGrouping::None);
        view.stacks()->setAllocatedInRange(s.stacks->allocatedInRange);
        view.stacks()->setOptions(o);
        FlameGraphWidget *flame = view.stacks()->flameGraph();
        const CallTreeNodeId zoom = flame->nodeOfPath(QString::fromStdString(s.stacks->flameZoom));
        flame->zoomTo(zoom.isNone() ? CallTree::kRoot : zoom);
    }
    if (s.search)
        view.timeline()->setSearchText(QString::fromStdString(*s.search));
    if (s.whatIf)
        view.segments()->whatIf()->setConfig(QString::fromStdString(*s.whatIf));
}

} // namespace memlens
