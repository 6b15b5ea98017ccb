#include "timeline/WhatIfOverlay.h"

#include "state/ViewState.h"
#include "style/ByteText.h"

#include <qcustomplot.h>

namespace memlens {

namespace {
const QColor kPredicted(230, 130, 0);
const QColor kOom(220, 40, 40);
} // namespace

WhatIfOverlay::WhatIfOverlay(QCustomPlot *plot) : plot_(plot)
{
    line_ = plot_->addGraph();
    line_->setLineStyle(QCPGraph::lsStepLeft);
    line_->setPen(QPen(kPredicted, 2));
    line_->setSelectable(QCP::stNone);
    oom_ = new QCPItemStraightLine(plot_);
    oom_->setPen(QPen(kOom, 1.5, Qt::DashDotLine));
    oom_->setSelectable(false);
    oomLabel_ = new QCPItemText(plot_);
    oomLabel_->setColor(kOom);
    oomLabel_->setText(QObject::tr("predicted OOM "));
    oomLabel_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    oomLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    oomLabel_->setSelectable(false);
}

QString WhatIfOverlay::update(const ViewState &state)
{
    const std::shared_ptr<const ReplayResult> &r = state.whatIf();
    line_->data()->clear();
    oom_->setVisible(false);
    oomLabel_->setVisible(false);
    if (!r)
        return {};
    const TimelineAxis &axis = state.axis();
    QVector<double> x{axis.xMin()}, y{double(r->startReservedBytes)};
    for (const auto &[event, bytes] : r->predictedReserved) {
        x << axis.xOfEvent(event);
        y << double(bytes);
    }
    x << (r->predicted.oomAt ? axis.xOfEvent(*r->predicted.oomAt) : axis.xMax());
    y << y.back();
    line_->setData(x, y, true);
    if (plot_->yAxis->range().upper < double(r->predicted.peakReservedBytes) * 1.05)
        plot_->yAxis->setRangeUpper(double(r->predicted.peakReservedBytes) * 1.08);
    const QString conf = QString::fromStdString(r->config.text());
    QString text = QObject::tr(" · <span style='color:%1'>what if %2: reserved %3 (solid)</span>")
                       .arg(kPredicted.name(), conf.isEmpty() ? QObject::tr("torch's defaults") : conf.toHtmlEscaped(),
                            bytesText(r->predicted.peakReservedBytes));
    if (r->predicted.oomAt) {
        const double at = axis.xOfEvent(*r->predicted.oomAt);
        oom_->point1->setCoords(at, 0);
        oom_->point2->setCoords(at, 1);
        oomLabel_->position->setCoords(at, 0.02);
        oom_->setVisible(true);
        oomLabel_->setVisible(true);
        text += QObject::tr(" · <span style='color:%1'>predicted OOM at event %2</span>").arg(kOom.name()).arg(r->predicted.oomAt->index());
    }
    return text;
}

} // namespace memlens
