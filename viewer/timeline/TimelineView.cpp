#include "timeline/TimelineView.h"

#include "annotations/AnnotationSet.h"
#include "document/ViewState.h"
#include "model/ByteFormat.h"
#include "style/AllocationText.h"
#include "style/ColorModeBox.h"
#include "style/PlotPalette.h"
#include "timeline/AllocationBandsPlottable.h"
#include "timeline/BinaryBytesTicker.h"
#include "timeline/TimelineOverview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace memlens {

TimelineView::TimelineView(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    readout_ = new QLabel(this);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    axisMode_ = new QComboBox(this);
    axisMode_->addItems({tr("X: events"), tr("X: time")});
    axisMode_->setToolTip(tr("Plot against the event index or against wall-clock time (time_us)"));
    auto *colorMode = new ColorModeBox(state_, this);
    bar->addWidget(readout_, 1);
    bar->addWidget(axisMode_);
    bar->addWidget(colorMode);
    layout->addLayout(bar);

    plot_ = new QCustomPlot(this);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BinaryBytesTicker));
    plot_->yAxis->setLabel(tr("Active memory"));
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    plot_->setFocusPolicy(Qt::StrongFocus);
    setFocusProxy(plot_);
    bands_ = new AllocationBandsPlottable(plot_->xAxis, plot_->yAxis);
    layout->addWidget(plot_, 1);
    overview_ = new TimelineOverview(this);
    layout->addWidget(overview_);

    connect(plot_->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, &TimelineView::onRangeChanged);
    connect(overview_, &TimelineOverview::windowMoved, this, [this](double x0, double x1) {
        plot_->xAxis->setRange(x0, x1);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(axisMode_, &QComboBox::currentIndexChanged, this, [this](int i) { state_->setTimeAxis(i == 1); });
    connect(state_, &ViewState::colorModeChanged, this, [this](ColorMode mode) {
        bands_->setColoring(mode);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(state_, &ViewState::timeAxisChanged, this, [this] { rebuild(); });
    connect(state_, &ViewState::deviceChanged, this, [this] { rebuild(); });
    connect(state_, &ViewState::selectedAllocationChanged, this, [this](uint32_t a) {
        bands_->setSelectedAllocation(a);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    });
    connect(state_, &ViewState::selectedEventChanged, this, [this](uint32_t e) {
        bands_->setCursorEvent(e);
        plot_->replot(QCustomPlot::rpQueuedReplot);
    });
    // Shift-drag selects a range and zooms into it.
    plot_->setSelectionRectMode(QCP::srmNone);
    connect(plot_->selectionRect(), &QCPSelectionRect::accepted, this, [this](const QRect &rect, QInputEvent *) {
        if (rect.width() < 3)
            return;
        const double a = plot_->xAxis->pixelToCoord(rect.left()), b = plot_->xAxis->pixelToCoord(rect.right());
        plot_->xAxis->setRange(std::min(a, b), std::max(a, b));
        plot_->replot();
    });
    applyPalette();
}

void TimelineView::setDocument(std::shared_ptr<const Document> doc)
{
    doc_ = std::move(doc);
    rebuild();
    fit();
}

void TimelineView::rebuild()
{
    device_ = doc_ ? doc_->device(state_->device()) : nullptr;
    axis_ = TimelineAxis(device_ ? device_->index.get() : nullptr, state_->timeAxis());
    const QSignalBlocker blocker(axisMode_);
    axisMode_->setCurrentIndex(axis_.isTime() ? 1 : 0);
    axisMode_->setEnabled(doc_ && doc_->snapshot->facts.hasTimes);
    bands_->setData(doc_, device_, axis_);
    overview_->setData(device_, axis_);
    plot_->xAxis->setLabel(axis_.isTime() ? tr("Time since the first event (s)") : tr("Event"));
    if (device_) {
        const double top = static_cast<double>(std::max(device_->index->peakActiveBytes(), device_->index->peakReservedBytes()));
        plot_->yAxis->setRange(0, std::max(1.0, top * 1.08));
        const DeviceSummary &s = device_->summary;
        QString text = tr("<b>Peak %1</b>").arg(QString::fromStdString(formatBytes(s.peakActiveBytes)));
        if (s.peakIndex)
            text += tr(" at %1").arg(eventLabel(*device_->index, *s.peakIndex));
        const bool dark = palette().color(QPalette::Base).lightness() < 128;
        const QString red = dark ? QStringLiteral("#ff8080") : QStringLiteral("#c81e1e");
        text += tr(" · reserved peak %1 <span style='color:%2'>(dashed line)</span>")
                    .arg(QString::fromStdString(formatBytes(s.peakReservedBytes)), red);
        if (!s.ooms.empty())
            text += tr(" · <span style='color:%1'>%n OOM(s)</span>", nullptr, static_cast<int>(s.ooms.size())).arg(red);
        readout_->setText(text);
    } else {
        readout_->setText(tr("No trace for this device"));
    }
    // Keep the visible range in the new x units.
    fit();
}

QString TimelineView::peakReadout() const
{
    return readout_->text();
}

void TimelineView::fit()
{
    plot_->xAxis->setRange(axis_.xMin(), std::max(axis_.xMin() + 1e-9, axis_.xMax() + (axis_.isTime() ? 0.0 : 1.0)));
    plot_->replot();
}

void TimelineView::zoomBy(double factor)
{
    const QCPRange r = plot_->xAxis->range();
    const double centre = state_->selectedEvent() != kBeforeTrace ? axis_.xOfEvent(state_->selectedEvent()) : r.center();
    plot_->xAxis->setRange(centre - r.size() / factor / 2, centre + r.size() / factor / 2);
    plot_->replot();
}

void TimelineView::revealEvent(uint32_t event)
{
    if (!device_ || event == kBeforeTrace)
        return;
    state_->setSelectedEvent(event);
    const QCPRange r = plot_->xAxis->range();
    const double full = axis_.xMax() - axis_.xMin();
    const double width = r.size() >= full * 0.99 ? full / 20 : r.size();
    const double x = axis_.xOfEvent(event);
    plot_->xAxis->setRange(x - width / 2, x + width / 2);
    plot_->replot();
}

void TimelineView::onRangeChanged()
{
    if (clamping_)
        return;
    clamping_ = true;
    QCPRange r = plot_->xAxis->range();
    const double lo = axis_.xMin(), hi = axis_.xMax() + (axis_.isTime() ? 0.0 : 1.0);
    const double minWidth = axis_.isTime() ? 1e-6 : 4.0;
    double width = std::clamp(r.size(), std::min(minWidth, hi - lo), std::max(hi - lo, 1e-9));
    double start = std::clamp(r.lower, lo, std::max(lo, hi - width));
    if (start != r.lower || width != r.size())
        plot_->xAxis->setRange(start, start + width);
    clamping_ = false;
    overview_->setWindow(start, start + width);
    state_->setVisibleRange(start, start + width);
    if (device_ && device_->index->eventCount())
        state_->setVisibleEvents(axis_.eventAt(start), axis_.eventAt(start + width));
}


void TimelineView::setAnnotations(const AnnotationSet *annotations)
{
    bands_->setAnnotations(annotations);
    for (auto signal : {&AnnotationSet::changed, &AnnotationSet::appearanceChanged})
        connect(annotations, signal, this, [this] { plot_->replot(QCustomPlot::rpQueuedReplot); });
}

void TimelineView::setDark(bool dark)
{
    bands_->setDark(dark);
    applyPalette();
}

void TimelineView::applyPalette()
{
    bands_->setDark(palette().color(QPalette::Base).lightness() < 128);
    applyPlotPalette(plot_, palette());
}

void TimelineView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

QString TimelineView::tooltipAt(const QPoint &pixel) const
{
    if (!device_)
        return {};
    uint32_t event = kBeforeTrace;
    const uint32_t allocation = bands_->allocationAtPixel(pixel, &event);
    if (allocation != UINT32_MAX)
        return allocationTooltip(*doc_, *device_->index, allocation);
    if (event == kBeforeTrace)
        return {};
    const double y = plot_->yAxis->pixelToCoord(pixel.y());
    const auto &frame = bands_->lastFrame();
    const auto c = static_cast<size_t>((pixel.x() - plot_->axisRect()->left()) * frame.total.size() /
                                       std::max(1, plot_->axisRect()->width()));
    if (c < frame.otherTop.size() && y >= 0 && y < static_cast<double>(frame.otherTop[c]))
        return tr("%1 in smaller allocations at %2 (zoom in to see them one by one)")
            .arg(QString::fromStdString(formatBytes(frame.otherTop[c])), eventLabel(*device_->index, event));
    return {};
}

void TimelineView::clickAt(const QPoint &pixel)
{
    uint32_t event = kBeforeTrace;
    const uint32_t allocation = bands_->allocationAtPixel(pixel, &event);
    if (event != kBeforeTrace)
        state_->setSelectedEvent(event);
    state_->setSelectedAllocation(allocation);
}

bool TimelineView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != plot_)
        return QWidget::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::MouseButtonPress: {
        auto *me = static_cast<QMouseEvent *>(event);
        pressAt_ = me->pos();
        plot_->setSelectionRectMode(me->modifiers() & Qt::ShiftModifier ? QCP::srmCustom : QCP::srmNone);
        break;
    }
    case QEvent::MouseButtonRelease: {
        auto *me = static_cast<QMouseEvent *>(event);
        if ((me->pos() - pressAt_).manhattanLength() < 4 && me->button() == Qt::LeftButton)
            clickAt(me->pos());
        break;
    }
    case QEvent::MouseMove: {
        auto *me = static_cast<QMouseEvent *>(event);
        if (me->buttons() == Qt::NoButton) {
            const QString tip = tooltipAt(me->pos());
            if (tip.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(me->globalPosition().toPoint(), tip, plot_);
        }
        break;
    }
    case QEvent::KeyPress:
        keyPressEvent(static_cast<QKeyEvent *>(event));
        return event->isAccepted();
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

void TimelineView::stepCursor(int delta)
{
    if (!device_ || device_->index->eventCount() == 0)
        return;
    const auto n = static_cast<int64_t>(device_->index->eventCount());
    const int64_t current = state_->selectedEvent() == kBeforeTrace ? 0 : state_->selectedEvent();
    const auto next = static_cast<uint32_t>(std::clamp<int64_t>(current + delta, 0, n - 1));
    state_->setSelectedEvent(next);
    const QCPRange r = plot_->xAxis->range();
    const double x = axis_.xOfEvent(next);
    if (x < r.lower || x > r.upper)
        plot_->xAxis->setRange(x - r.size() / 2, x + r.size() / 2);
    plot_->replot();
}

void TimelineView::nextOom()
{
    if (!device_ || device_->summary.ooms.empty())
        return;
    const uint32_t current = state_->selectedEvent();
    for (const OomInfo &o : device_->summary.ooms) {
        if (current == kBeforeTrace || o.index > current) {
            revealEvent(o.index);
            return;
        }
    }
    revealEvent(device_->summary.ooms.front().index);
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    const bool big = event->modifiers() & Qt::ShiftModifier;
    switch (event->key()) {
    case Qt::Key_Left: stepCursor(big ? -100 : -1); break;
    case Qt::Key_Right: stepCursor(big ? 100 : 1); break;
    case Qt::Key_Home: stepCursor(INT32_MIN / 2); break;
    case Qt::Key_End: stepCursor(INT32_MAX / 2); break;
    case Qt::Key_P:
        if (device_ && device_->summary.peakIndex)
            revealEvent(*device_->summary.peakIndex);
        break;
    case Qt::Key_O: nextOom(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(2.0); break;
    case Qt::Key_Minus: zoomBy(0.5); break;
    case Qt::Key_0: fit(); break;
    default:
        event->ignore();
        return;
    }
    event->accept();
}

} // namespace memlens
