#include "timeline/TimelineOverview.h"

#include "state/ViewState.h"

#include <cmath>
#include <QMouseEvent>
#include <QPainter>

namespace memlens {

TimelineOverview::TimelineOverview(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    setMinimumHeight(40);
    setCursor(Qt::OpenHandCursor);
    setToolTip(tr("The whole trace; drag the window to pan"));
    auto newCurve = [this] {
        curve_.clear();
        update();
    };
    connect(state_, &ViewState::deviceChanged, this, newCurve);
    connect(state_, &ViewState::timeAxisChanged, this, newCurve);
    connect(state_, &ViewState::timelineChanged, this, newCurve);
    connect(state_, &ViewState::visibleRangeChanged, this, qOverload<>(&QWidget::update));
}

double TimelineOverview::xToPixel(double x) const
{
    const TimelineAxis &axis = state_->axis();
    const double span = std::max(1e-12, axis.xMax() - axis.xMin());
    return (x - axis.xMin()) / span * width();
}

double TimelineOverview::pixelToX(double px) const
{
    const TimelineAxis &axis = state_->axis();
    return axis.xMin() + px / std::max(1, width()) * (axis.xMax() - axis.xMin());
}

void TimelineOverview::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const DeviceData *device = state_->deviceData();
    const TimelineLayout *layout = state_->deviceLayout();
    if (!device || !layout || device->index->eventCount() == 0)
        return;
    if (curve_.size() != static_cast<size_t>(width())) {
        const TimelineAxis &axis = state_->axis();
        curve_ = layout->layoutColumns(axis.columnRanges(axis.xMin(), axis.xMax(), width()), 0).total;
    }
    const double top = static_cast<double>(std::max<uint64_t>(1, device->index->peakActiveBytes()));
    // One rectangle per column: QPainter fills those directly, while a polygon of the same
    // outline goes through its scan converter, which took a third of every timeline frame.
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(110);
    const QBrush brush(fill);
    for (size_t c = 0; c < curve_.size(); ++c) {
        const int y = height() - 2 - static_cast<int>(std::lround((height() - 4) * static_cast<double>(curve_[c]) / top));
        p.fillRect(QRect(static_cast<int>(c), y, 1, height() - y), brush);
    }
    const VisibleRange range = state_->visibleRange();
    const QRectF window(QPointF(xToPixel(range.first), 0), QPointF(xToPixel(range.last), height() - 1));
    QColor shade = palette().color(QPalette::Text);
    shade.setAlpha(40);
    p.setBrush(shade);
    p.setPen(QPen(palette().color(QPalette::Text), 1));
    p.drawRect(window.adjusted(0, 0, std::max(0.0, 3 - window.width()), 0));
}

void TimelineOverview::mousePressEvent(QMouseEvent *event)
{
    const VisibleRange range = state_->visibleRange();
    const double left = xToPixel(range.first), right = xToPixel(range.last);
    const double px = event->position().x();
    grab_ = (px >= left && px <= right) ? px - left : (right - left) / 2;
    moveTo(px);
}

void TimelineOverview::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & Qt::LeftButton)
        moveTo(event->position().x());
}

void TimelineOverview::moveTo(double px)
{
    const VisibleRange range = state_->visibleRange();
    const double x0 = pixelToX(px - grab_);
    state_->setVisibleRange({x0, x0 + range.last - range.first}); // the state keeps it inside the trace
}

} // namespace memlens
