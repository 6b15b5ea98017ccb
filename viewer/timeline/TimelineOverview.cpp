#include "timeline/TimelineOverview.h"

#include <QMouseEvent>
#include <QPainter>

namespace memlens {

TimelineOverview::TimelineOverview(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(40);
    setCursor(Qt::OpenHandCursor);
    setToolTip(tr("The whole trace; drag the window to pan"));
}

void TimelineOverview::setData(const DeviceData *device, const TimelineAxis &axis)
{
    device_ = device;
    axis_ = axis;
    curve_.clear();
    update();
}

void TimelineOverview::setWindow(double x0, double x1)
{
    x0_ = x0;
    x1_ = x1;
    update();
}

double TimelineOverview::xToPixel(double x) const
{
    const double span = std::max(1e-12, axis_.xMax() - axis_.xMin());
    return (x - axis_.xMin()) / span * width();
}

double TimelineOverview::pixelToX(double px) const
{
    return axis_.xMin() + px / std::max(1, width()) * (axis_.xMax() - axis_.xMin());
}

void TimelineOverview::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!device_ || device_->index->eventCount() == 0)
        return;
    if (curve_.size() != static_cast<size_t>(width())) {
        const TimelineFrame frame = device_->layout->layoutColumns(axis_.columnRanges(axis_.xMin(), axis_.xMax(), width()), 0);
        curve_ = frame.total;
    }
    const double top = static_cast<double>(std::max<uint64_t>(1, device_->index->peakActiveBytes()));
    QPolygonF area;
    area << QPointF(0, height());
    for (size_t c = 0; c < curve_.size(); ++c)
        area << QPointF(static_cast<double>(c), height() - 2 - (height() - 4) * static_cast<double>(curve_[c]) / top);
    area << QPointF(static_cast<double>(curve_.size()), height());
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(110);
    p.setPen(Qt::NoPen);
    p.setBrush(fill);
    p.drawPolygon(area);
    const QRectF window(QPointF(xToPixel(x0_), 0), QPointF(xToPixel(x1_), height() - 1));
    QColor shade = palette().color(QPalette::Text);
    shade.setAlpha(40);
    p.setBrush(shade);
    p.setPen(QPen(palette().color(QPalette::Text), 1));
    p.drawRect(window.adjusted(0, 0, std::max(0.0, 3 - window.width()), 0));
}

void TimelineOverview::mousePressEvent(QMouseEvent *event)
{
    const double left = xToPixel(x0_), right = xToPixel(x1_);
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
    const double span = x1_ - x0_;
    double x0 = pixelToX(px - grab_);
    x0 = std::clamp(x0, axis_.xMin(), std::max(axis_.xMin(), axis_.xMax() - span));
    emit windowMoved(x0, x0 + span);
}

} // namespace memlens
