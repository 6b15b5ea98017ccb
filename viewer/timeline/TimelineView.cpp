#include "timeline/TimelineView.h"

#include "state/ViewState.h"
#include "notes/NoteSet.h"
#include "style/AllocationText.h"
#include "style/BandColors.h"
#include "style/ByteText.h"
#include "state/ColorModeBox.h"
#include "style/PlotPalette.h"
#include "timeline/AllocationBandsPlottable.h"
#include "plots/BytesPlot.h"
#include "timeline/TimelineOverview.h"
#include "timeline/WhatIfOverlay.h"
#include "questions/QuestionError.h"
#include "questions/SearchQuestion.h"

#include <climits>

#include <QComboBox>
#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QToolTip>
#include <QVBoxLayout>

namespace memlens {

TimelineView::~TimelineView() = default;

TimelineView::TimelineView(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *bar = new QHBoxLayout;
    readout_ = new QLabel(this);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout_->setWordWrap(true); // a what-if adds its own words
    axisMode_ = new QComboBox(this);
    axisMode_->addItems({tr("X: events"), tr("X: time")});
    axisMode_->setToolTip(tr("Plot against the event index or against wall-clock time (time_us)"));
    auto *colorMode = new ColorModeBox(state_, this);
    search_ = new QLineEdit(this);
    search_->setPlaceholderText(tr("Search frame, label, metadata, 0xaddress (Ctrl+F)"));
    search_->setToolTip(tr("Outlines the drawn allocations that match; Enter selects the next match in the run"));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(260);
    searchHits_ = new QLabel(this);
    bar->addWidget(readout_, 1);
    bar->addWidget(searchHits_);
    bar->addWidget(search_);
    bar->addWidget(axisMode_);
    bar->addWidget(colorMode);
    layout->addLayout(bar);
    // Colour by category: which colour is which.
    legend_ = new QLabel(this);
    QStringList entries;
    for (int c = 0; c < kCategoryCount; ++c)
        entries << QStringLiteral("<span style='color:%1'>■</span> %2")
                       .arg(categoryColor(c).name(), QString::fromUtf8(categoryLabel(static_cast<Category>(c))));
    legend_->setText(entries.join(QStringLiteral(" &nbsp; ")));
    legend_->setVisible(state_->colorMode() == ColorMode::Category);
    layout->addWidget(legend_);

    plot_ = newBytesPlot(this, tr("Active memory"));
    plot_->setMouseTracking(true);
    plot_->installEventFilter(this);
    plot_->setFocusPolicy(Qt::StrongFocus);
    setFocusProxy(plot_);
    bands_ = new AllocationBandsPlottable(state_, plot_->xAxis, plot_->yAxis);
    whatIf_ = std::make_unique<WhatIfOverlay>(plot_);
    layout->addWidget(plot_, 1);
    overview_ = new TimelineOverview(state_, this);
    layout->addWidget(overview_);

    connect(plot_->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, &TimelineView::onPlotRangeChanged);
    connect(search_, &QLineEdit::textChanged, this, &TimelineView::setSearchText);
    connect(state_, &ViewState::documentChanged, this, [this] { bands_->setSearch(nullptr); });
    connect(search_, &QLineEdit::returnPressed, this, &TimelineView::nextSearchHit);
    auto *find = new QShortcut(QKeySequence::Find, this, [this] {
        search_->setFocus();
        search_->selectAll();
    });
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(plot_, &QCustomPlot::afterReplot, this, [this] {
        const bool searching = bands_->search() && !bands_->search()->empty();
        const size_t hits = bands_->searchHits();
        const QString drawn = hits == 1 ? tr("1 match drawn") : tr("%1 matches drawn").arg(hits);
        searchHits_->setText(!searching ? searchNote_ : drawn + QStringLiteral(" · ") + searchNote_);
    });
    connect(axisMode_, &QComboBox::currentIndexChanged, this, [this](int i) { state_->setTimeAxis(i == 1); });
    auto replot = [this] { plot_->replot(QCustomPlot::rpQueuedReplot); };
    connect(state_, &ViewState::colorModeChanged, this, replot);
    connect(state_, &ViewState::colorModeChanged, this, [this] { legend_->setVisible(state_->colorMode() == ColorMode::Category); });
    connect(state_, &ViewState::selectedAllocationChanged, this, replot);
    connect(state_, &ViewState::selectedEventChanged, this, replot);
    connect(state_, &ViewState::timelineChanged, this, replot);
    connect(state_, &ViewState::deviceChanged, this, &TimelineView::rebuild);
    connect(state_, &ViewState::timeAxisChanged, this, &TimelineView::rebuild);
    connect(state_, &ViewState::visibleRangeChanged, this, &TimelineView::showRange);
    connect(state_, &ViewState::whatIfChanged, this, &TimelineView::showWhatIf);
    // Shift-drag selects a range and zooms into it.
    plot_->setSelectionRectMode(QCP::srmNone);
    connect(plot_->selectionRect(), &QCPSelectionRect::accepted, this, [this](const QRect &rect, QInputEvent *) {
        if (rect.width() < 3)
            return;
        const double a = plot_->xAxis->pixelToCoord(rect.left()), b = plot_->xAxis->pixelToCoord(rect.right());
        state_->zoomTo({std::min(a, b), std::max(a, b)});
    });
    applyPalette();
}

void TimelineView::rebuild()
{
    setSearchText(search_->text()); // the search refers to the device's index
    const DeviceData *device = state_->deviceData();
    const QSignalBlocker blocker(axisMode_);
    axisMode_->setCurrentIndex(state_->timeAxis() ? 1 : 0);
    axisMode_->setEnabled(state_->document() && state_->document()->snapshot->facts.hasTimes);
    plot_->xAxis->setLabel(state_->timeAxis() ? tr("Time since the first event (s)") : tr("Event"));
    if (device) {
        const auto top = static_cast<double>(device->stackedPeakBytes);
        plot_->yAxis->setLabel(device->pools.empty() ? tr("Active memory") : tr("Active memory, private pools at their envelope"));
        plot_->yAxis->setRange(0, std::max(1.0, top * 1.08));
        const DeviceSummary &s = device->summary;
        QString text = tr("<b>Peak %1</b>").arg(bytesText(s.peakActiveBytes));
        if (s.peakIndex)
            text += tr(" at %1").arg(eventLabel(*device->index, *s.peakIndex));
        const bool dark = isDarkPalette(palette());
        const QString red = dark ? QStringLiteral("#ff8080") : QStringLiteral("#c81e1e");
        text += tr(" · reserved peak %1 <span style='color:%2'>(dashed line)</span>").arg(bytesText(s.peakReservedBytes), red);
        if (!s.ooms.empty())
            text += (s.ooms.size() == 1 ? tr(" · <span style='color:%1'>1 OOM</span>").arg(red)
                                        : tr(" · <span style='color:%1'>%2 OOMs</span>").arg(red).arg(s.ooms.size()));
        readoutBase_ = text;
    } else {
        readoutBase_ = tr("No trace for this device");
    }
    showWhatIf();
    showRange(state_->visibleRange());
}

void TimelineView::drawNow()
{
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void TimelineView::showWhatIf()
{
    readout_->setText(readoutBase_ + whatIf_->update(*state_));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString TimelineView::peakReadout() const
{
    return readout_->text();
}

void TimelineView::fit()
{
    state_->showAll();
}

void TimelineView::zoomBy(double factor)
{
    const VisibleRange r = state_->visibleRange();
    const double width = r.last - r.first;
    const std::optional<EventId> selected = state_->selectedEvent();
    const double centre = selected ? state_->axis().xOfEvent(*selected) : (r.first + r.last) / 2;
    state_->setVisibleRange({centre - width / factor / 2, centre + width / factor / 2});
}

void TimelineView::setSearchText(const QString &text)
{
    if (search_->text() != text)
        search_->setText(text); // comes back here through textChanged
    // The search question's answer: its matcher outlines the bands, its count is the run's; a
    // text it refuses (over 1,000 bytes) is said where the count goes.
    const std::string needle = text.trimmed().toStdString();
    std::shared_ptr<const AllocationSearch> matcher;
    searchNote_.clear();
    if (state_->deviceData() && !needle.empty()) {
        try {
            const SearchAnswer answer = answerSearch(indexedDevice(state_->document(), state_->device()), {std::nullopt, needle, 0});
            matcher = answer.matcher;
            searchNote_ = tr("%n in the run", nullptr, static_cast<int>(std::min<size_t>(answer.matches, INT_MAX)));
        } catch (const QuestionError &e) {
            searchNote_ = tr("search text %1").arg(QString::fromStdString(e.what()));
        }
    }
    bands_->setSearch(std::move(matcher));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::nextSearchHit()
{
    const DeviceData *device = state_->deviceData();
    const AllocationSearch *search = bands_->search();
    if (!device || !search || search->empty())
        return;
    const AllocationId hit = search->next(state_->selectedAllocation());
    if (hit.isNone()) {
        searchHits_->setText(tr("no match in the run"));
        return;
    }
    state_->setSelectedAllocation(hit);
    const EventId born = device->index->allocation(hit).allocEvent;
    revealEvent(born.isNone() ? EventId(0) : born); // a block from before the trace: its start
}

void TimelineView::revealEvent(EventId event)
{
    if (!state_->deviceData() || event.isNone())
        return;
    state_->setSelectedEvent(event);
    const VisibleRange r = state_->visibleRange(), full = state_->fullRange();
    const double width = r.last - r.first >= (full.last - full.first) * 0.99 ? (full.last - full.first) / 20 : r.last - r.first;
    const double x = state_->axis().xOfEvent(event);
    state_->zoomTo({x - width / 2, x + width / 2});
}

void TimelineView::onPlotRangeChanged(const QCPRange &range)
{
    if (showingRange_)
        return;
    // The plot's drag and wheel zoom propose a range; the state clamps it and owns it.
    state_->setVisibleRange({range.lower, range.upper});
    const VisibleRange r = state_->visibleRange();
    if (plot_->xAxis->range() != QCPRange(r.first, r.last))
        showRange(r);
}

void TimelineView::showRange(VisibleRange range)
{
    showingRange_ = true;
    plot_->xAxis->setRange(range.first, range.last);
    showingRange_ = false;
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setNotes(const NoteSet *notes)
{
    bands_->setNotes(notes);
    for (auto signal : {&NoteSet::changed, &NoteSet::appearanceChanged})
        connect(notes, signal, this, [this] { plot_->replot(QCustomPlot::rpQueuedReplot); });
}

void TimelineView::applyPalette()
{
    bands_->setDark(isDarkPalette(palette()));
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
    const DeviceData *device = state_->deviceData();
    if (!device)
        return {};
    EventId event;
    const AllocationId allocation = bands_->allocationAtPixel(pixel, &event);
    if (!allocation.isNone())
        return allocationTooltip(*state_->document(), *device->index, allocation);
    const long c = bands_->columnAtPixel(pixel.x());
    if (event.isNone() || c < 0)
        return {};
    const double y = plot_->yAxis->pixelToCoord(pixel.y());
    const TimelineFrame &frame = bands_->lastFrame();
    const auto column = static_cast<size_t>(c);
    auto within = [y](uint64_t lo, uint64_t hi) { return y >= static_cast<double>(lo) && y < static_cast<double>(hi); };
    const QString at = eventLabel(*device->index, event);
    if (within(frame.otherBottom[column], frame.otherTop[column])) {
        QString tip = tr("%1 in smaller allocations at %2 (zoom in to see them one by one)").arg(bytesText(frame.otherTop[column] - frame.otherBottom[column]), at);
        if (const uint64_t ghosts = frame.otherGhostTop[column] - frame.otherBottom[column])
            tip += tr("\n%1 of it (hatched, at the bottom) alive before the trace began: ghost blocks, whose allocation the trace does not have").arg(bytesText(ghosts));
        return tip;
    }
    for (const TimelinePoolRegion &region : frame.pools) {
        if (!within(region.base[column], region.top[column]))
            continue;
        const PoolUsage &pool = device->pools[region.pool];
        const auto &[p0, p1] = state_->document()->snapshot->poolId(pool.pool);
        return tr("Private pool (%1, %2), stream %3, at %4:\n%5 in use, %6 reserved, %7 at most so far\n(%8 in smaller allocations)")
            .arg(p0).arg(p1).arg(pool.stream).arg(at, bytesText(pool.active.at(TracePoint::after(event))), bytesText(pool.reserved.at(TracePoint::after(event))),
                 bytesText(pool.envelope.at(TracePoint::after(event))), bytesText(region.otherTop[column] - region.base[column]));
    }
    return {};
}

void TimelineView::clickAt(const QPoint &pixel)
{
    EventId event;
    const AllocationId allocation = bands_->allocationAtPixel(pixel, &event);
    if (!event.isNone())
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
    const DeviceData *device = state_->deviceData();
    if (!device || device->index->eventCount() == 0)
        return;
    const auto n = static_cast<int64_t>(device->index->eventCount());
    const int64_t current = state_->selectedEvent().value_or(EventId(0)).index();
    const EventId next(static_cast<uint32_t>(std::clamp<int64_t>(current + delta, 0, n - 1)));
    state_->setSelectedEvent(next);
    const VisibleRange r = state_->visibleRange();
    const double x = state_->axis().xOfEvent(next);
    if (x < r.first || x > r.last)
        state_->setVisibleRange({x - (r.last - r.first) / 2, x + (r.last - r.first) / 2});
}

void TimelineView::nextOom()
{
    const DeviceData *device = state_->deviceData();
    if (!device || device->summary.ooms.empty())
        return;
    const std::optional<EventId> current = state_->selectedEvent();
    for (const OomDiagnosis &o : device->summary.ooms) {
        if (!current || o.event > *current) {
            revealEvent(o.event);
            return;
        }
    }
    revealEvent(device->summary.ooms.front().event);
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
        if (const DeviceData *device = state_->deviceData(); device && device->summary.peakIndex)
            revealEvent(*device->summary.peakIndex);
        break;
    case Qt::Key_O: nextOom(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(2.0); break;
    case Qt::Key_Minus: zoomBy(0.5); break;
    case Qt::Key_0: fit(); break;
    case Qt::Key_Backspace: state_->zoomOut(); break;
    default:
        event->ignore();
        return;
    }
    event->accept();
}

} // namespace memlens
