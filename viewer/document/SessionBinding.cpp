#include "document/SessionBinding.h"

#include "annotations/AnnotationSet.h"
#include "document/DocumentView.h"
#include "document/ViewState.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentsPage.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "timeline/TimelineView.h"

#include <QTabWidget>
#include <qcustomplot.h>

namespace memlens {

namespace {
const char *kPages[] = {"summary", "timeline", "segments", "stacks", "live", "categories"};
const char *kColors[] = {"allocation", "site", "category"};
}

Session captureSession(const DocumentView &view)
{
    Session s;
    s.snapshotPath = view.path().toStdString();
    s.snapshotChecksum = snapshotChecksum(s.snapshotPath);
    s.snapshotSize = std::stoull(s.snapshotChecksum.empty() ? "0" : s.snapshotChecksum.substr(0, s.snapshotChecksum.find('-')));
    s.device = view.state()->device();
    s.page = kPages[static_cast<int>(view.currentPageKind())];
    s.timeAxis = view.state()->timeAxis();
    s.color = kColors[static_cast<int>(view.state()->colorMode())];
    const QCPRange range = view.timeline()->plot()->xAxis->range();
    s.visibleFirst = range.lower;
    s.visibleLast = range.upper;
    if (view.state()->selectedEvent() != kBeforeTrace)
        s.selectedEvent = view.state()->selectedEvent();
    if (view.state()->selectedAllocation() != UINT32_MAX)
        s.selectedAllocation = view.state()->selectedAllocation();
    s.segmentBytesPerRow = view.segments()->map()->bytesPerRow();
    const CallTreeOptions o = view.stacks()->options();
    const FlameGraphWidget *flame = view.stacks()->flameGraph();
    s.stacks = StacksViewState{o.bottomUp, o.hideNoise, o.pythonOnly, o.foldRecursion, view.stacks()->allocatedInRange(),
                               flame->pathOf(flame->zoomedNode()).toStdString()};
    s.annotations = view.annotations()->toJson();
    return s;
}

void applySession(DocumentView &view, const Session &s)
{
    if (!view.document() || !view.document()->device(s.device))
        return;
    view.state()->setDevice(s.device);
    view.annotations()->setFromJson(s.annotations);
    view.state()->setTimeAxis(s.timeAxis);
    for (int c = 0; c < 3; ++c) {
        if (s.color == kColors[c])
            view.state()->setColorMode(static_cast<ColorMode>(c));
    }
    for (int p = 0; p < 6; ++p) {
        if (s.page == kPages[p])
            view.showPage(static_cast<DocumentView::Page>(p));
    }
    if (s.selectedEvent)
        view.state()->setSelectedEvent(*s.selectedEvent);
    if (s.selectedAllocation)
        view.state()->setSelectedAllocation(*s.selectedAllocation);
    if (s.visibleFirst && s.visibleLast && *s.visibleLast > *s.visibleFirst) {
        view.timeline()->plot()->xAxis->setRange(*s.visibleFirst, *s.visibleLast);
        view.timeline()->plot()->replot();
    }
    if (s.segmentBytesPerRow)
        view.segments()->map()->setBytesPerRow(*s.segmentBytesPerRow);
    if (s.stacks) {
        CallTreeOptions o = view.stacks()->options();
        o.bottomUp = s.stacks->bottomUp;
        o.hideNoise = s.stacks->hideNoise;
        o.pythonOnly = s.stacks->pythonOnly;
        o.foldRecursion = s.stacks->foldRecursion;
        view.stacks()->setAllocatedInRange(s.stacks->allocatedInRange);
        view.stacks()->setOptions(o);
        FlameGraphWidget *flame = view.stacks()->flameGraph();
        const uint32_t zoom = flame->nodeOfPath(QString::fromStdString(s.stacks->flameZoom));
        flame->zoomTo(zoom == UINT32_MAX ? 0 : zoom);
    }
}

} // namespace memlens
