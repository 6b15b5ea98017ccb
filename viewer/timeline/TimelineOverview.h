#pragma once
// A strip showing the whole trace's active bytes with the visible window as a draggable
// rectangle; dragging it (or clicking) moves the timeline's visible range.
#include "document/Document.h"
#include "timeline/TimelineAxis.h"

#include <QWidget>

namespace memlens {

class TimelineOverview : public QWidget {
    Q_OBJECT

public:
    explicit TimelineOverview(QWidget *parent = nullptr);
    void setData(const DeviceData *device, const TimelineAxis &axis);
    void setWindow(double x0, double x1);
    QSize sizeHint() const override { return {400, 48}; }

signals:
    void windowMoved(double x0, double x1);

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *) override { curve_.clear(); }

private:
    double xToPixel(double x) const;
    double pixelToX(double px) const;
    void moveTo(double centrePixel);

    const DeviceData *device_ = nullptr;
    TimelineAxis axis_;
    std::vector<uint64_t> curve_;
    double x0_ = 0, x1_ = 1;
    double grab_ = 0; // where in the window the mouse holds it, in pixels from its left edge
};

} // namespace memlens
