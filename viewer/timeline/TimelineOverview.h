#pragma once
// A strip showing the whole trace's active bytes with the visible window as a draggable
// rectangle; dragging it (or clicking) moves the ViewState's visible range.
#include <QWidget>
#include <vector>

namespace memlens {

class ViewState;

class TimelineOverview : public QWidget {
    Q_OBJECT

public:
    explicit TimelineOverview(ViewState *state, QWidget *parent = nullptr);
    QSize sizeHint() const override { return {400, 48}; }

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *) override { curve_.clear(); }

private:
    double xToPixel(double x) const;
    double pixelToX(double px) const;
    void moveTo(double centrePixel);

    ViewState *state_;
    std::vector<uint64_t> curve_; // active bytes per pixel column, for the current device and axis
    double grab_ = 0; // where in the window the mouse holds it, in pixels from its left edge
};

} // namespace memlens
