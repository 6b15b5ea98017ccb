#pragma once
// A QCustomPlot that draws its layers when it is painted, not at every resize (a resize only
// lays it out): QCustomPlot replots at each resize event, and a widget shown for the first time
// gets two (its pending resize, then its layout's), each a full replot of a long run's
// timeline, and neither cancels the replot already queued; a window opening a 12 M-entry run
// drew its timeline four times before the first frame reached the screen.
#include <qcustomplot.h>

namespace memlens {

class DeferredPlot : public QCustomPlot
{
public:
    explicit DeferredPlot(QWidget *parent = nullptr);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    // The buffers were drawn for another size: the next paint replots first.
    bool resized_ = false;
};

} // namespace memlens
