#include "segments/SegmentTimelineView.h"

#include "plots/BytesPlot.h"
#include "segments/SegmentBandsPlottable.h"
#include "state/RefreshWhenShown.h"
#include "state/ViewState.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"

#include <QComboBox>
#include <QStandardItemModel>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace memlens {

SegmentTimelineView::SegmentTimelineView(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    title_ = new QLabel(this);
    title_->setTextFormat(Qt::RichText);
    title_->setMinimumWidth(0);
    title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    title_->setWordWrap(true); // under a what-if the title is long: it wraps beside the combos, not under them
    bar->addWidget(title_, 1);
    source_ = new QComboBox(this);
    source_->addItem(tr("recorded segments"));
    source_->addItem(tr("segments under the what-if setting"));
    source_->setToolTip(tr("Pick a what-if setting on the Segments page to see the segments the replay predicts"));
    bar->addWidget(source_);
    auto *orderLabel = new QLabel(tr("Stack &by:"), this);
    order_ = new QComboBox(this);
    order_->addItem(tr("address"), int(SegmentOrder::Address));
    order_->addItem(tr("size (largest at the bottom)"), int(SegmentOrder::Size));
    order_->addItem(tr("allocation order (as MemoryViz)"), int(SegmentOrder::Allocation));
    order_->setToolTip(tr("Allocation order: each segment on top of those alive when it was made; no band moves when a segment appears "
                          "below it in address"));
    orderLabel->setBuddy(order_);
    bar->addWidget(orderLabel);
    bar->addWidget(order_);
    layout->addLayout(bar);
    plot_ = newBytesPlot(this, tr("reserved, by segment"));
    plot_->xAxis->setLabel(tr("event"));
    bands_ = new SegmentBandsPlottable(plot_->xAxis, plot_->yAxis);
    bands_->setName(tr("recorded segments"));
    predicted_ = plot_->addGraph();
    predicted_->setLineStyle(QCPGraph::lsStepLeft);
    predicted_->setName(tr("reserved under the what-if setting"));
    cursor_ = new QCPItemStraightLine(plot_);
    cursor_->setVisible(false);
    plot_->legend->setVisible(false);
    // Top left: the end of a run, where an OOM is, stays clear.
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    plot_->installEventFilter(this);
    plot_->setMouseTracking(true);
    plot_->setMinimumHeight(160); // never laid out to nothing: QCustomPlot draws on every resize, hidden or not
    layout->addWidget(plot_, 1);
    auto *hint = new QLabel(tr("Each band is a segment the caching allocator reserved (cudaMalloc, or an expandable segment's "
                               "mapped range), over the events it lived; its full colour is what live allocations use, the pale "
                               "rest is reserved but free. Click to move the cursor, double-click to see the segment map there."),
                            this);
    hint->setWordWrap(true);
    layout->addWidget(hint);

    refresh_ = new RefreshWhenShown(this, [this] { rebuild(); });
    connect(state_, &ViewState::deviceChanged, refresh_, &RefreshWhenShown::request);
    connect(state_, &ViewState::selectedEventChanged, this, &SegmentTimelineView::followCursor);
    connect(state_, &ViewState::whatIfChanged, this, [this] {
        showWhatIf();
        if (isVisible())
            relayout(); // the predicted segments may be the ones shown
    });
    connect(order_, &QComboBox::currentIndexChanged, this, &SegmentTimelineView::relayout);
    connect(source_, &QComboBox::currentIndexChanged, this, &SegmentTimelineView::relayout);
    connect(plot_->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] {
        if (!relayingOut_ && isVisible())
            QMetaObject::invokeMethod(this, &SegmentTimelineView::relayout, Qt::QueuedConnection);
    });
    applyPalette();
}

SegmentOrder SegmentTimelineView::order() const
{
    return static_cast<SegmentOrder>(order_->currentData().toInt());
}

void SegmentTimelineView::setOrder(SegmentOrder order)
{
    order_->setCurrentIndex(order_->findData(int(order)));
}

bool SegmentTimelineView::showsPredicted() const
{
    return source_->currentIndex() == 1 && state_->whatIf();
}

void SegmentTimelineView::setShowsPredicted(bool predicted)
{
    source_->setCurrentIndex(predicted ? 1 : 0);
}

QString SegmentTimelineView::titleText() const
{
    return title_->text();
}

void SegmentTimelineView::rebuild()
{
    const DeviceData *d = state_->deviceData();
    const size_t n = d ? d->index->eventCount() : 0;
    const QSignalBlocker blocker(plot_->xAxis);
    plot_->xAxis->setRange(0, std::max<double>(1, double(n)));
    showWhatIf();
    relayout();
    followCursor();
}

void SegmentTimelineView::relayout()
{
    const DeviceData *d = state_->deviceData();
    const size_t n = d ? d->index->eventCount() : 0;
    if (!d || n == 0) {
        bands_->setFrame({}, {});
        title_->setText(tr("<b>No trace entries</b>: nothing to draw over time"));
        replotIfShown();
        return;
    }
    relayingOut_ = true;
    QCPRange range = plot_->xAxis->range().bounded(0, double(n));
    const auto first = static_cast<uint32_t>(std::clamp(range.lower, 0.0, double(n - 1)));
    const auto last = static_cast<uint32_t>(std::clamp(range.upper, double(first), double(n - 1)));
    const int columns = std::clamp(plot_->axisRect()->width(), 1, kMaxColumns);
    const bool predicted = showsPredicted();
    SegmentTimelineFrame frame;
    if (predicted) {
        std::vector<SegmentSpan> spans;
        for (const PredictedSegment &s : state_->whatIf()->predictedSegments)
            spans.push_back({s.addr, s.size, TracePoint::bornAt(s.created), TracePoint::goneAt(s.released)});
        frame = layoutSegmentSpans(*d->index, spans, EventId(first), EventId(last), columns, order());
    } else {
        frame = layoutSegmentTimeline(*d->index, EventId(first), EventId(last), columns, order());
    }
    std::vector<double> columnX;
    columnX.push_back(first);
    for (EventId e : frame.columnLast)
        columnX.push_back(double(e.index()) + 1);
    uint64_t top = 0;
    for (uint64_t s : frame.stacked)
        top = std::max(top, s);
    const size_t segments = frame.bands.size();
    bands_->setFrame(std::move(frame), std::move(columnX));
    bands_->setOccupancyKnown(!predicted);
    bands_->setName(predicted ? tr("predicted segments (how full each is is not modelled)") : tr("recorded segments"));
    plot_->yAxis->setRange(0, std::max<double>(1, double(std::max<uint64_t>(top, d->index->peakReservedBytes())) * 1.05));
    title_->setText(tr("<b>Segments over time</b>%1: %2 segment lives in events %3–%4; at most %5 reserved")
                        .arg(predicted ? tr(" predicted under %1")
                                             .arg(QString::fromStdString(state_->whatIf()->config.text()).toHtmlEscaped())
                                       : QString())
                        .arg(segments)
                        .arg(first)
                        .arg(last)
                        .arg(bytesText(top)));
    title_->setToolTip(title_->text());
    replotIfShown();
    relayingOut_ = false;
}

void SegmentTimelineView::followCursor()
{
    const std::optional<EventId> e = state_->selectedEvent();
    cursor_->setVisible(e.has_value());
    if (e) {
        cursor_->point1->setCoords(double(e->index()) + 0.5, 0);
        cursor_->point2->setCoords(double(e->index()) + 0.5, 1);
    }
    replotIfShown();
}

void SegmentTimelineView::showWhatIf()
{
    const auto &result = state_->whatIf();
    QVector<double> xs, ys;
    if (result) {
        xs << 0;
        ys << double(result->startReservedBytes);
        for (const auto &[event, bytes] : result->predictedReserved) {
            xs << double(event.index()) + 1;
            ys << double(bytes);
        }
        if (const DeviceData *d = state_->deviceData()) {
            xs << double(d->index->eventCount());
            ys << ys.back();
        }
    }
    predicted_->setData(xs, ys, true);
    predicted_->setVisible(result != nullptr);
    // The predicted segments can be shown only while there is a replay to show.
    if (auto *model = qobject_cast<QStandardItemModel *>(source_->model()))
        model->item(1)->setEnabled(result != nullptr);
    if (!result) {
        const QSignalBlocker blocker(source_); // the caller lays the bands out once
        source_->setCurrentIndex(0);
    }
    plot_->legend->setVisible(result != nullptr);
    replotIfShown();
}

// A hidden plot has no paint device to draw on; showing the page lays it out and draws it.
void SegmentTimelineView::replotIfShown()
{
    if (isVisible())
        plot_->replot(QCustomPlot::rpQueuedReplot);
}

EventId SegmentTimelineView::eventAtPixel(double x) const
{
    const DeviceData *d = state_->deviceData();
    const double n = d ? double(d->index->eventCount()) : 0;
    return EventId(static_cast<uint32_t>(std::clamp(plot_->xAxis->pixelToCoord(x), 0.0, std::max(0.0, n - 1))));
}

QString SegmentTimelineView::describeAt(const QPoint &pixel) const
{
    const DeviceData *d = state_->deviceData();
    size_t column = 0;
    const SegmentBand *band = d ? bands_->bandAtPixel(pixel, &column) : nullptr;
    if (!band)
        return {};
    if (showsPredicted()) {
        const PredictedSegment &s = state_->whatIf()->predictedSegments[band->life.index()];
        return tr("Predicted segment 0x%1: %2\nreserved %3 → %4")
            .arg(s.addr, 0, 16)
            .arg(bytesText(s.size))
            .arg(s.created.isNone() ? tr("before the trace") : eventLabel(*d->index, s.created),
                 s.released == kNever ? tr("still reserved at the end") : eventLabel(*d->index, s.released));
    }
    const SegmentLife &life = d->index->segmentLife(band->life);
    const QString from = life.fromBeforeTrace() ? tr("before the trace") : eventLabel(*d->index, life.createdEvent);
    const QString to = life.releasedEvent == kNever ? tr("still reserved at the end") : eventLabel(*d->index, life.releasedEvent);
    return tr("Segment 0x%1: %2 on stream %3%4\nreserved %5 → %6\n%7 used by live allocations after %8")
        .arg(life.addr, 0, 16)
        .arg(bytesText(life.size))
        .arg(life.stream)
        .arg(life.expandable ? tr(" (expandable)") : QString())
        .arg(from, to, bytesText(band->used[column - band->firstColumn]),
             eventLabel(*d->index, bands_->frame().columnLast[column]));
}

bool SegmentTimelineView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == plot_) {
        if (event->type() == QEvent::MouseMove) {
            const QPoint pos = static_cast<QMouseEvent *>(event)->pos();
            const QString text = describeAt(pos);
            if (text.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(plot_->mapToGlobal(pos), text, plot_);
        } else if (event->type() == QEvent::MouseButtonPress) {
            pressed_ = static_cast<QMouseEvent *>(event)->pos();
        } else if (event->type() == QEvent::MouseButtonRelease && state_->deviceData() &&
                   (static_cast<QMouseEvent *>(event)->pos() - pressed_).manhattanLength() < 4) {
            state_->setSelectedEvent(eventAtPixel(static_cast<QMouseEvent *>(event)->position().x()));
        } else if (event->type() == QEvent::MouseButtonDblClick && state_->deviceData()) {
            state_->setSelectedEvent(eventAtPixel(static_cast<QMouseEvent *>(event)->position().x()));
            emit showSegments();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SegmentTimelineView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void SegmentTimelineView::applyPalette()
{
    applyPlotPalette(plot_, palette());
    const bool dark = isDarkPalette(palette());
    bands_->setDark(dark);
    predicted_->setPen(QPen(dark ? QColor(255, 200, 90) : QColor(200, 60, 0), 2, Qt::DashLine));
    cursor_->setPen(QPen(dark ? QColor(240, 240, 240) : QColor(20, 20, 20), 1));
    replotIfShown();
}

} // namespace memlens
