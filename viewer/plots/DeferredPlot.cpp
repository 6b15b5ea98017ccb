#include "plots/DeferredPlot.h"

namespace memlens {

DeferredPlot::DeferredPlot(QWidget *parent) : QCustomPlot(parent)
{
    // Any replot, however asked for, draws the buffers at the current size.
    connect(this, &QCustomPlot::beforeReplot, this, [this] { resized_ = false; });
}

void DeferredPlot::resizeEvent(QResizeEvent *)
{
    // The layout follows at once (it is cheap, and the pages map pixels to data through it);
    // the drawing waits for the paint.
    setViewport(rect());
    updateLayout();
    resized_ = true;
    update();
}

void DeferredPlot::paintEvent(QPaintEvent *event)
{
    // rpQueuedRefresh: the buffers are drawn for this paint to show; the update() it asks for
    // brings one more paint, which finds them current.
    if (resized_)
        replot(QCustomPlot::rpQueuedRefresh);
    QCustomPlot::paintEvent(event);
}

} // namespace memlens
