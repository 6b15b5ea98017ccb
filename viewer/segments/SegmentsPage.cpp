#include "segments/SegmentsPage.h"

#include "index/Moment.h"
#include "state/RefreshWhenShown.h"
#include "state/ViewState.h"
#include "segments/EventListModel.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentTableModel.h"
#include "segments/WhatIfPanel.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"
#include "state/ColorModeBox.h"

#include <QComboBox>
#include <algorithm>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace memlens {

SegmentsPage::SegmentsPage(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(buildBar());
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildEventList(split));
    split->addWidget(buildStatePanes(split));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 5);
    split->setSizes({460, 1140});
    layout->addWidget(split, 1);

    connectState();
}

// The bar above: the moment shown, Peak / OOM / End, the map's scale and the colouring.
QHBoxLayout *SegmentsPage::buildBar()
{
    auto *bar = new QHBoxLayout;
    title_ = new QLabel(this);
    // Its text (the moment, the totals) is clipped, not a minimum width: on a small screen the
    // page must fit the window, not widen it.
    title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(title_, 1);
    for (const auto &[moment, label, tip] : {std::tuple{Moment::peak(), tr("Peak"), tr("The state at the peak (P on the timeline)")},
                                             std::tuple{Moment::oom(), tr("OOM"), tr("The state at the first out-of-memory error")},
                                             std::tuple{Moment::end(), tr("End"), tr("The state when the snapshot was taken")}}) {
        auto *button = new QPushButton(label, this);
        button->setToolTip(tip);
        bar->addWidget(button);
        connect(button, &QPushButton::clicked, this, [this, moment] {
            const DeviceData *d = state_->deviceData();
            if (!d)
                return;
            try {
                // A peak before the trace is its start, which the cursor cannot name.
                if (const TracePoint at = pointOf(*d->index, moment); !at.isStart())
                    state_->setSelectedEvent(at.lastEntry());
            } catch (const std::invalid_argument &) {
                // The device has no OOM entry, or no entries at all: nothing to go to.
            }
        });
    }
    scale_ = new QComboBox(this);
    auto *scale = scale_;
    // Every scale the map accepts; Ctrl+wheel steps by 2 as well.
    for (uint64_t bytes = SegmentMapWidget::kMinBytesPerRow; bytes <= SegmentMapWidget::kMaxBytesPerRow; bytes *= 2)
        scale->addItem(tr("%1 per row").arg(bytesText(bytes)), QVariant::fromValue<qulonglong>(bytes));
    scale->setToolTip(tr("Bytes per row of the map (Ctrl+wheel on the map)"));
    bar->addWidget(scale);
    bar->addWidget(new ColorModeBox(state_, this));
    return bar;
}

// The event list with its action filter and address search.
QWidget *SegmentsPage::buildEventList(QWidget *parent)
{
    auto *left = new QWidget(parent);
    auto *ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    auto *filters = new QHBoxLayout;
    actionFilter_ = new QComboBox(left);
    actionFilter_->addItem(tr("All actions"), -1);
    for (int a = 0; a < kActionCount; ++a)
        actionFilter_->addItem(QString::fromStdString(std::string(actionName(static_cast<Action>(a)))), a);
    search_ = new QLineEdit(left);
    search_->setPlaceholderText(tr("Address (0x… or decimal)"));
    search_->setClearButtonEnabled(true);
    filters->addWidget(actionFilter_);
    filters->addWidget(search_, 1);
    ll->addLayout(filters);
    eventModel_ = new EventListModel(this);
    events_ = new QTableView(left);
    events_->setModel(eventModel_);
    events_->setSelectionBehavior(QAbstractItemView::SelectRows);
    events_->setSelectionMode(QAbstractItemView::SingleSelection);
    events_->verticalHeader()->hide();
    events_->setTabKeyNavigation(false); // Tab moves on to the next control, not the next cell
    events_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    events_->horizontalHeader()->setStretchLastSection(true);
    // Addresses differ in their low digits: a narrow pane keeps those ("…1b2940000").
    events_->setTextElideMode(Qt::ElideLeft);
    ll->addWidget(events_);
    return left;
}

// The allocator's state at the cursor: figures, verdict, map; the segments' table; the What-if.
QSplitter *SegmentsPage::buildStatePanes(QWidget *parent)
{
    auto *right = new QSplitter(Qt::Vertical, parent);
    auto *top = new QWidget(right);
    auto *tl = new QVBoxLayout(top);
    tl->setContentsMargins(0, 0, 0, 0);
    figures_ = new QLabel(top);
    figures_->setWordWrap(true);
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_ = new QLabel(top);
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setFrameShape(QFrame::StyledPanel);
    verdict_->setMargin(6);
    verdict_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    connect(verdict_, &QLabel::linkActivated, this, &SegmentsPage::showLiveTensors);
    map_ = new SegmentMapWidget;
    scroll_ = new QScrollArea(top);
    scroll_->setWidget(map_);
    scroll_->setWidgetResizable(true);
    tl->addWidget(figures_);
    tl->addWidget(verdict_);
    tl->addWidget(scroll_, 1);
    segmentModel_ = new SegmentTableModel(this);
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(segmentModel_);
    proxy->setSortRole(Qt::EditRole);
    segments_ = new QTableView(right);
    segments_->setModel(proxy);
    segments_->setSortingEnabled(true);
    segments_->sortByColumn(SegmentTableModel::Free, Qt::DescendingOrder);
    segments_->verticalHeader()->hide();
    segments_->setTabKeyNavigation(false); // Tab moves on to the next control, not the next cell
    segments_->horizontalHeader()->setStretchLastSection(true);
    segments_->setTextElideMode(Qt::ElideLeft);
    // The What-if may be squeezed below its own height (a plot, the replay's figures), which made
    // the window taller than a 700 px screen once a setting was picked; a replay shown then gets
    // the room its chart asks for (below).
    whatIf_ = new WhatIfPanel(state_, right);
    whatIf_->setMinimumHeight(120);
    right->addWidget(top);
    right->addWidget(segments_);
    right->addWidget(whatIf_);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 1);
    right->setStretchFactor(2, 1);
    // A replay shown gets the room its chart asks for, from the segments' table first.
    connect(whatIf_, &WhatIfPanel::replayed, right, [right, top, this] {
        const QList<int> sizes = right->sizes();
        const int total = sizes.value(0) + sizes.value(1) + sizes.value(2);
        const int pane = std::min(whatIf_->sizeHint().height(), total * 3 / 5);
        const int map = std::max(top->minimumSizeHint().height(), (total - pane) * 3 / 4);
        right->setSizes({map, std::max(0, total - map - pane), pane});
    });
    return right;
}

// The page follows the cursor, the device, the scale and the colouring; its list moves the cursor.
void SegmentsPage::connectState()
{
    connect(scale_, &QComboBox::currentIndexChanged, this, [this] { map_->setBytesPerRow(scale_->currentData().toULongLong()); });
    // Ctrl+wheel on the map changes the scale too: the menu follows.
    connect(map_, &SegmentMapWidget::bytesPerRowChanged, this, [this](uint64_t bytes) {
        const int i = scale_->findData(QVariant::fromValue<qulonglong>(bytes));
        if (i >= 0) {
            const QSignalBlocker blocker(scale_);
            scale_->setCurrentIndex(i);
        }
    });
    map_->setBytesPerRow(scale_->currentData().toULongLong());
    connect(actionFilter_, &QComboBox::currentIndexChanged, this, &SegmentsPage::applyFilter);
    connect(search_, &QLineEdit::editingFinished, this, &SegmentsPage::applyFilter);
    connect(events_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (current.isValid() && !syncingList_)
            state_->setSelectedEvent(eventModel_->eventAt(current.row()));
    });
    connect(map_, &SegmentMapWidget::allocationClicked, state_, &ViewState::setSelectedAllocation);
    connect(state_, &ViewState::colorModeChanged, map_, &SegmentMapWidget::setColorMode);
    connect(state_, &ViewState::selectedAllocationChanged, map_, &SegmentMapWidget::setSelectedAllocation);
    // A new device rebuilds the event list and the map (a 12 M-entry trace's list takes a
    // quarter of a second): only when the page is shown, like a cursor move.
    auto *refresh = new RefreshWhenShown(this, [this] {
        if (std::exchange(deviceStale_, false))
            rebuild();
        else
            showState(state_->cursorPoint(device_ ? device_->index->end() : TracePoint::start()));
    });
    connect(state_, &ViewState::selectedEventChanged, refresh, &RefreshWhenShown::request);
    connect(state_, &ViewState::deviceChanged, refresh, [this, refresh] {
        deviceStale_ = true;
        if (!isVisible())
            release(); // the previous document is not kept alive by a hidden page
        refresh->request();
    });
}

void SegmentsPage::release()
{
    device_ = nullptr;
    shown_.reset();
    eventModel_->setDevice(nullptr, 0);
    segmentModel_->setState({});
    map_->setState(nullptr, nullptr, {});
}

void SegmentsPage::rebuild()
{
    device_ = state_->deviceData();
    eventModel_->setDevice(state_->document(), state_->device());
    events_->resizeColumnsToContents();
    // The rows measured are the first ones; later event numbers and sizes are wider. Room for the
    // last event's number and the widest size text, so neither is cut when scrolled to.
    if (const int rows = eventModel_->rowCount(); rows > 0) {
        const QFontMetrics fm(events_->font());
        const int margin = 2 * events_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, events_) + 12;
        const QString lastEvent = eventModel_->index(rows - 1, EventListModel::Index).data().toString();
        events_->setColumnWidth(EventListModel::Index, std::max(events_->columnWidth(EventListModel::Index), fm.horizontalAdvance(lastEvent) + margin));
        int sizeWidth = events_->columnWidth(EventListModel::Size);
        for (uint64_t widest : {uint64_t(1023) << 10, uint64_t(1023) << 20, uint64_t(1023) << 30, uint64_t(8.88 * double(1ull << 30))})
            sizeWidth = std::max(sizeWidth, fm.horizontalAdvance(bytesText(widest)) + margin);
        events_->setColumnWidth(EventListModel::Size, sizeWidth);
    }
    shown_.reset();
    if (!device_)
        return;
    // About 40 rows for the largest the allocator ever reserved on this device.
    const uint64_t target = device_->index->peakReservedBytes() / 40;
    int pick = scale_->count() - 1;
    for (int i = 0; i < scale_->count(); ++i) {
        if (scale_->itemData(i).toULongLong() >= target) {
            pick = i;
            break;
        }
    }
    scale_->setCurrentIndex(pick);
    showState(state_->cursorPoint(device_->index->end()));
}

void SegmentsPage::applyFilter()
{
    std::optional<Action> action;
    if (const int a = actionFilter_->currentData().toInt(); a >= 0)
        action = static_cast<Action>(a);
    std::optional<uint64_t> address;
    const QString text = search_->text().trimmed();
    if (!text.isEmpty()) {
        bool ok = false;
        const qulonglong value = text.startsWith("0x", Qt::CaseInsensitive) ? text.mid(2).toULongLong(&ok, 16) : text.toULongLong(&ok, 10);
        search_->setStyleSheet(ok ? QString() : QStringLiteral("color: #dc2828"));
        if (ok)
            address = value;
    }
    eventModel_->setFilter(action, address);
    const int row = shown_ ? eventModel_->rowForEvent(shown_->lastEntry()) : -1;
    if (row >= 0)
        events_->scrollTo(eventModel_->index(row, 0), QAbstractItemView::PositionAtCenter);
}

void SegmentsPage::showState(TracePoint at)
{
    if (!device_ || at == shown_)
        return;
    shown_ = at;
    AllocatorState st = allocatorStateAt(*state_->document()->snapshot, *device_->index, at);
    title_->setText(tr("<b>Allocator state after %1</b> (%2 segments)").arg(pointLabel(*device_->index, at)).arg(st.segments.size()));
    title_->setToolTip(title_->text()); // the whole of it, when a narrow window clips the label
    figures_->setText(tr("Reserved %1 · allocated %2 (requested %3, rounding waste %4) · free in reserved %5 · "
                         "largest free block %6 · external fragmentation %7 % · pending free %8")
                          .arg(bytesText(st.reserved), bytesText(st.allocated), bytesText(st.requested), bytesText(st.roundingWaste()), bytesText(st.free), bytesText(st.largestFree))
                          .arg(qRound(st.externalFragmentation() * 100))
                          .arg(bytesText(st.pendingFree)));
    verdict_->clear();
    verdict_->hide();
    // The diagnosis was made once, with the summary; this page only shows it.
    for (const OomDiagnosis &d : device_->summary.ooms) {
        if (TracePoint::after(d.event) != at)
            continue;
        verdict_->setText(tr("<b>Out of memory: %1</b><br/>%2<br/>The device reported %3 free%4. "
                             "<a href='live'>Show the tensors live at this moment</a>.")
                              .arg(QString::fromStdString(d.verdict()), QString::fromStdString(d.explanation()).toHtmlEscaped(), bytesText(d.deviceFree),
                                   d.perProcessLimit() ? tr(": %1").arg(QString::fromLatin1(kProcessLimitFinding)) : QString()));
        verdict_->show();
    }
    segmentModel_->setState(st);
    map_->setState(state_->document(), device_, std::move(st));
    map_->setSelectedAllocation(state_->selectedAllocation());
    const int row = eventModel_->rowForEvent(at.lastEntry());
    if (row >= 0 && (!events_->currentIndex().isValid() || events_->currentIndex().row() != row)) {
        syncingList_ = true;
        events_->setCurrentIndex(eventModel_->index(row, 0));
        syncingList_ = false;
        events_->scrollTo(eventModel_->index(row, 0), QAbstractItemView::PositionAtCenter);
    }
}

QString SegmentsPage::figuresText() const
{
    return figures_->text();
}

QString SegmentsPage::verdictText() const
{
    return verdict_->isHidden() ? QString() : verdict_->text();
}

void SegmentsPage::revealMapPoint(const QPointF &point)
{
    scroll_->ensureVisible(static_cast<int>(point.x()), static_cast<int>(point.y()), 50, 120);
}

void SegmentsPage::revealNotes()
{
    if (const auto at = map_->firstNotePixel())
        revealMapPoint(*at);
}

} // namespace memlens
