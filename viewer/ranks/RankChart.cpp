#include "ranks/RankChart.h"

#include "style/PlotPalette.h"
#include "plots/BinaryBytesTicker.h"
#include "plots/DeferredPlot.h"

#include <algorithm>
#include <cmath>
#include <qcustomplot.h>
#include <QVBoxLayout>

namespace memlens {

RankChart::RankChart(QWidget *parent) : QWidget(parent), plot_(new DeferredPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BinaryBytesTicker));
    plot_->yAxis->setLabel(tr("Peak memory"));
    plot_->xAxis->setLabel(tr("Rank"));
    plot_->xAxis->grid()->setZeroLinePen(Qt::NoPen);
    plot_->legend->setVisible(true);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst); // rows of three above the bars, not over them
    plot_->legend->setWrap(3);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    setMinimumHeight(260);
    connect(plot_, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable *p, int dataIndex, QMouseEvent *) {
        if (p->interface1D()) // the bar's x is its row
            emit rankClicked(static_cast<int>(std::lround(p->interface1D()->dataMainKey(dataIndex))));
    });
}

void RankChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        const std::vector<RankFigures> ranks = ranks_;
        setRanks(ranks, comparison_);
    }
}

void RankChart::setRanks(const std::vector<RankFigures> &ranks, const RankComparison &comparison)
{
    ranks_ = ranks;
    comparison_ = comparison;
    plot_->clearPlottables();
    plot_->clearItems();
    applyPlotPalette(plot_, palette());
    // Three bar series side by side would hide the point: one series per colour, at the same x.
    auto bars = [&](const QString &name, const QColor &color) {
        auto *b = new QCPBars(plot_->xAxis, plot_->yAxis);
        b->setName(name);
        b->setBrush(color);
        b->setPen(Qt::NoPen);
        b->setWidth(0.7);
        return b;
    };
    QCPBars *normal = bars(tr("Peak active"), QColor(78, 121, 167));
    QCPBars *outlier = bars(tr("Outlier (>10 % off the peak most ranks share)"), QColor(242, 142, 44));
    QCPBars *oom = bars(tr("Rank with an OOM"), QColor(220, 50, 50));
    auto *reserved = new QCPGraph(plot_->xAxis, plot_->yAxis);
    reserved->setName(tr("Peak reserved"));
    reserved->setLineStyle(QCPGraph::lsNone);
    reserved->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssPlus, palette().color(QPalette::Text), 9));
    uint64_t top = 0;
    for (size_t i = 0; i < ranks.size(); ++i) {
        const RankFigures &r = ranks[i];
        const double x = static_cast<double>(i);
        const bool isOom = std::find(comparison.oomRanks.begin(), comparison.oomRanks.end(), i) != comparison.oomRanks.end();
        const bool isOutlier = std::find(comparison.outliers.begin(), comparison.outliers.end(), i) != comparison.outliers.end();
        (isOom ? oom : isOutlier ? outlier : normal)->addData(x, static_cast<double>(r.peakActiveBytes));
        reserved->addData(x, static_cast<double>(r.peakReservedBytes));
        top = std::max({top, r.peakActiveBytes, r.peakReservedBytes});
    }
    // Rank numbers under the bars; thinned out when there are many.
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const size_t every = std::max<size_t>(1, ranks.size() / 32);
    for (size_t i = 0; i < ranks.size(); i += every)
        ticker->addTick(static_cast<double>(i), QString::number(ranks[i].file.rank));
    plot_->xAxis->setTicker(ticker);
    if (comparison.medianPeak > 0) {
        auto *median = new QCPItemStraightLine(plot_);
        median->point1->setCoords(0, comparison.medianPeak);
        median->point2->setCoords(1, comparison.medianPeak);
        median->setPen(QPen(palette().color(QPalette::Text), 1, Qt::DashLine));
        // Named in the legend: a text item of its own sat under the legend in a narrow window.
        auto *entry = new QCPGraph(plot_->xAxis, plot_->yAxis);
        entry->setPen(median->pen());
        entry->setName(tr("median peak (imbalance, max ÷ median: %1)").arg(comparison.imbalance, 0, 'f', 2));
    }
    plot_->xAxis->setRange(-0.6, static_cast<double>(ranks.size()) - 0.4);
    plot_->yAxis->setRange(0, static_cast<double>(top) * 1.45 + 1); // headroom for two legend rows
    // A folder watched before the job wrote to it: no chart (it drew empty axes up to "1 B").
    plot_->setVisible(!ranks.empty());
    plot_->replot();
}

} // namespace memlens
