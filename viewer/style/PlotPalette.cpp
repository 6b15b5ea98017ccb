#include "style/PlotPalette.h"

#include <qcustomplot.h>

#include <QPalette>

namespace memlens {

void applyPlotPalette(QCustomPlot *plot, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::Text), base = palette.color(QPalette::Base);
    plot->setBackground(base);
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        QColor grid = text;
        grid.setAlpha(40);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    }
    plot->legend->setBrush(base);
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(text));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

} // namespace memlens
