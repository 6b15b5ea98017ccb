#include "SessionBinding.h"

#include "AnnotationSet.h"
#include "DocumentView.h"
#include "TimelineView.h"
#include "ViewState.h"

#include <QTabWidget>
#include <qcustomplot.h>

namespace memlens {

namespace {
const char *kPages[] = {"summary", "timeline", "segments", "stacks", "live", "categories"};
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
    const QCPRange range = view.timeline()->plot()->xAxis->range();
    s.visibleFirst = range.lower;
    s.visibleLast = range.upper;
    if (view.state()->selectedEvent() != kBeforeTrace)
        s.selectedEvent = view.state()->selectedEvent();
    if (view.state()->selectedAllocation() != UINT32_MAX)
        s.selectedAllocation = view.state()->selectedAllocation();
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
}

} // namespace memlens
