#include "layers/LayersPage.h"

#include "plots/BinaryBytesTicker.h"
#include "plots/DeferredPlot.h"
#include "state/ViewState.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace memlens {

namespace {

const LayersSummary *layersOf(const ViewState &state)
{
    const DeviceData *d = state.deviceData();
    return d && d->summary.layers ? &*d->summary.layers : nullptr;
}

} // namespace

LayersPage::LayersPage(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    readout_ = new QLabel(this);
    readout_->setWordWrap(true);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    plot_ = new DeferredPlot(this);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BinaryBytesTicker));
    plot_->yAxis->setLabel(tr("Bytes made in the layer's forward and backward"));
    plot_->xAxis->setLabel(tr("Layer, in the order the pass ran them"));
    auto layerTicks = QSharedPointer<QCPAxisTickerFixed>::create(); // whole layers, more apart when many
    layerTicks->setTickStep(1.0);
    layerTicks->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(layerTicks);
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    auto bars = [this](const QString &name) {
        auto *b = new QCPBars(plot_->xAxis, plot_->yAxis);
        b->setName(name);
        b->setWidth(0.75);
        b->setPen(Qt::NoPen);
        return b;
    };
    retained_ = bars(tr("forward: kept for backward"));
    unfreed_ = bars(tr("forward: never freed in the trace"));
    transient_ = bars(tr("forward: needed for a moment"));
    unfreed_->moveAbove(retained_);
    transient_->moveAbove(unfreed_);
    backwardKept_ = bars(tr("backward: kept past it"));
    backwardTransient_ = bars(tr("backward: needed for a moment"));
    backwardTransient_->moveAbove(backwardKept_);
    for (QCPBars *b : {retained_, unfreed_, transient_, backwardKept_, backwardTransient_})
        b->setWidth(0.38);
    atPeak_ = plot_->addGraph();
    atPeak_->setName(tr("live at the run's peak"));
    atPeak_->setLineStyle(QCPGraph::lsNone);
    atPeak_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 7));
    layout->addWidget(readout_);
    layout->addWidget(plot_, 1);
    plot_->setToolTip(tr("Click a layer to show its forward on the timeline"));
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent *event) {
        if (event->button() == Qt::LeftButton)
            showLayer(layerAt(event->pos()));
    });
    connect(state_, &ViewState::deviceChanged, this, &LayersPage::rebuild);
    connect(state_, &ViewState::documentChanged, this, &LayersPage::rebuild);
    applyPalette();
}

int LayersPage::layerAt(const QPoint &pixel) const
{
    const LayersSummary *l = layersOf(*state_);
    const double key = plot_->xAxis->pixelToCoord(pixel.x());
    const long layer = std::lround(key);
    if (!l || layer < 0 || layer >= long(l->forward.size()) || std::abs(key - double(layer)) > 0.4 || !plot_->axisRect()->rect().contains(pixel))
        return -1;
    return int(layer);
}

void LayersPage::showLayer(int layer)
{
    const LayersSummary *l = layersOf(*state_);
    if (!l || layer < 0 || layer >= int(l->forward.size()))
        return;
    const LayerPassFigures &f = l->forward[size_t(layer)];
    state_->zoomTo(state_->rangeOfEvents(f.first, EventId(f.end.index() - 1)));
    emit showTimeline();
}

QString LayersPage::readout() const
{
    return readout_->text();
}

void LayersPage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void LayersPage::applyPalette()
{
    applyPlotPalette(plot_, palette());
    const bool dark = isDarkPalette(palette());
    retained_->setBrush(dark ? QColor(0x5b, 0x9b, 0xd5) : QColor(0x2f, 0x6d, 0xb0));
    backwardKept_->setBrush(dark ? QColor(0x8f, 0xc9, 0x8a) : QColor(0x4c, 0x9a, 0x48));
    backwardTransient_->setBrush(dark ? QColor(0xc5, 0xe3, 0xc0) : QColor(0xa9, 0xd6, 0xa3));
    unfreed_->setBrush(dark ? QColor(0x80, 0x80, 0x80) : QColor(0xa8, 0xa8, 0xa8));
    transient_->setBrush(dark ? QColor(0xe0, 0xa4, 0x58) : QColor(0xf0, 0xb8, 0x6c));
    atPeak_->setPen(QPen(dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc8, 0x28, 0x28)));
    plot_->replot();
}

void LayersPage::rebuild()
{
    for (QCPBars *b : {retained_, unfreed_, transient_, backwardKept_, backwardTransient_})
        b->data()->clear();
    atPeak_->data()->clear();
    const LayersSummary *l = layersOf(*state_);
    if (!l) {
        readout_->setText(tr("No layers found: the stacks show no line of the model's code that calls a module again and again in "
                             "each forward pass (a file without Python stacks, or a model without a single layer loop)."));
        plot_->replot();
        return;
    }
    uint64_t top = 0, kept = 0, unfreed = 0, live = 0;
    // Each layer's forward left of its number, its backward right of it; without a backward in
    // the trace (an OOM in forward) the forward alone, on its number.
    const bool withBackward = !l->backward.empty();
    for (QCPBars *b : {retained_, unfreed_, transient_})
        b->setWidth(withBackward ? 0.38 : 0.75);
    for (QCPBars *b : {backwardKept_, backwardTransient_}) {
        b->setVisible(withBackward);
        b->removeFromLegend();
        if (withBackward)
            b->addToLegend();
    }
    for (const LayerPassFigures &f : l->backward) {
        const double x = double(f.layer) + 0.2;
        backwardKept_->addData(x, double(f.retainedBytes + f.unfreedBytes));
        backwardTransient_->addData(x, double(f.transientBytes));
        top = std::max(top, f.retainedBytes + f.unfreedBytes + f.transientBytes);
    }
    for (const LayerPassFigures &f : l->forward) {
        const double x = double(f.layer) - (withBackward ? 0.2 : 0.0);
        retained_->addData(x, double(f.retainedBytes));
        unfreed_->addData(x, double(f.unfreedBytes));
        transient_->addData(x, double(f.transientBytes));
        atPeak_->addData(double(f.layer), double(f.atPeakBytes));
        top = std::max({top, f.retainedBytes + f.unfreedBytes + f.transientBytes, f.atPeakBytes});
        kept += f.retainedBytes + f.unfreedBytes;
        unfreed += f.unfreedBytes;
        live += f.atPeakBytes;
    }
    // A file whose layers leave nothing unfreed does not name it.
    unfreed_->setVisible(std::any_of(l->forward.begin(), l->forward.end(), [](const LayerPassFigures &f) { return f.unfreedBytes; }));
    unfreed_->removeFromLegend();
    if (unfreed_->visible())
        unfreed_->addToLegend();
    plot_->xAxis->ticker()->setTickCount(int(std::min<size_t>(l->forward.size(), 24))); // every layer named while they fit
    plot_->xAxis->setRange(-0.7, double(l->forward.size()) - 0.3);
    plot_->yAxis->setRange(0, double(top) * 1.45 + 1); // the legend above the bars
    const std::string origin = layersOrigin(*state_->document()->snapshot, *l);
    const QString backward = l->backward.empty() ? tr("the trace ends before their backward")
                                                 : tr("%n with their backward (right of each number)", "", int(l->backward.size()));
    const QString neverFreed = unfreed ? tr(" (%1 of it never freed in the trace)").arg(bytesText(unfreed)) : QString();
    readout_->setText(tr("<b>%1 layers</b> in forward pass %2 (%3), %4: together they keep %5 past their "
                         "forward%6; %7 of theirs is live at the run's peak. Click a layer to show its forward on the timeline.")
                          .arg(l->forward.size())
                          .arg(l->pass)
                          .arg(QString::fromStdString(origin).toHtmlEscaped(), backward, bytesText(kept), neverFreed, bytesText(live)));
    plot_->replot();
}

} // namespace memlens
