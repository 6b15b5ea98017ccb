#include "timeline/CategoryTimelineView.h"

#include "figures/SnapshotSummary.h"
#include "state/ViewState.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"
#include "plots/BytesPlot.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>

namespace memlens {

namespace {
// torch's own colours for the categories, so the picture matches its HTML export.
const QColor kColors[CategoryTimeline::kCategories] = {
    QColor("darkgreen"), QColor("goldenrod"), QColor("black"), QColor("mediumpurple"),
    QColor("red"),       QColor("mediumblue"), QColor("royalblue"), QColor("grey"),
};
} // namespace

CategoryTimelineView::CategoryTimelineView(const ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    readout_ = new QLabel(this);
    plot_ = newBytesPlot(this, tr("Memory"));
    plot_->xAxis->setLabel(tr("Time (ms since the first point)"));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(readout_);
    layout->addWidget(plot_, 1);
    applyPalette();
    connect(state_, &ViewState::documentChanged, this, &CategoryTimelineView::rebuild);
}

void CategoryTimelineView::rebuild()
{
    plot_->clearGraphs();
    const std::shared_ptr<const Document> &doc = state_->document();
    if (!doc || !doc->snapshot->categories)
        return;
    const CategoryTimeline &t = *doc->snapshot->categories;
    QVector<double> x;
    const double t0 = t.timeUs.empty() ? 0.0 : static_cast<double>(t.timeUs.front());
    for (int64_t us : t.timeUs)
        x << (static_cast<double>(us) - t0) / 1000.0;
    QVector<double> cumulative(x.size(), 0.0);
    QCPGraph *below = nullptr;
    for (int c = 0; c < CategoryTimeline::kCategories; ++c) {
        for (int i = 0; i < x.size(); ++i)
            cumulative[i] += static_cast<double>(t.bytes[static_cast<size_t>(i)][static_cast<size_t>(c)]);
        QCPGraph *g = plot_->addGraph();
        g->setName(QString::fromLatin1(CategoryTimeline::torchCategoryName(c)).replace('_', ' '));
        g->setData(x, cumulative, true);
        g->setLineStyle(QCPGraph::lsStepLeft);
        QColor fill = kColors[c];
        fill.setAlpha(180);
        g->setPen(QPen(kColors[c].darker(120), 0));
        g->setBrush(fill);
        if (below)
            g->setChannelFillGraph(below);
        below = g;
    }
    const CategorySummary s = summarizeCategories(t);
    readout_->setText(tr("<b>Peak %1</b> at %2 ms · %3 time points · categories as torch.profiler assigned them")
                          .arg(bytesText(s.peakTotal))
                          .arg((static_cast<double>(s.peakTimeUs) - t0) / 1000.0, 0, 'f', 1)
                          .arg(s.points));
    plot_->rescaleAxes();
    plot_->yAxis->setRange(0, static_cast<double>(s.peakTotal) * 1.08 + 1);
    plot_->replot();
}

QString CategoryTimelineView::readout() const
{
    return readout_->text();
}

void CategoryTimelineView::applyPalette()
{
    applyPlotPalette(plot_, palette());
}

void CategoryTimelineView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

} // namespace memlens
