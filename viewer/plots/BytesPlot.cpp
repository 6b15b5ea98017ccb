#include "plots/BytesPlot.h"

#include "plots/BinaryBytesTicker.h"
#include "plots/DeferredPlot.h"

#include <qcustomplot.h>

namespace memlens {

QCustomPlot *newBytesPlot(QWidget *parent, const QString &yLabel)
{
    auto *plot = new DeferredPlot(parent);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BinaryBytesTicker));
    plot->yAxis->setLabel(yLabel);
    return plot;
}

} // namespace memlens
