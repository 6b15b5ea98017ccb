#include "summary/LiveTensorsPage.h"

#include "questions/LiveAtQuestion.h"
#include "questions/QuestionError.h"
#include "questions/SearchQuestion.h"
#include "state/RefreshWhenShown.h"
#include "state/ViewState.h"
#include "stacks/CostBarDelegate.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"
#include "summary/AllocationTableWidths.h"
#include "summary/LiveAllocationModel.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace memlens {

// Filters on the search text (AllocationSearch: address, labels, metadata, any frame), a size range and, optionally,
// "created in a step before the cursor's and never freed" (what a leak leaves behind).
class LiveFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void set(std::shared_ptr<const Document> doc, const DeviceData *device, TracePoint cursor, const QString &text, uint64_t minBytes,
             uint64_t maxBytes, bool earlierStepOnly, std::optional<int32_t> unit)
    {
        unit_ = device && device->summary.units ? unit : std::nullopt;
        doc_ = std::move(doc);
        device_ = device;
        search_.reset();
        // The search question's matcher; a text it refuses (empty, over 1,000 bytes) filters nothing.
        if (doc_ && device_ && !text.isEmpty()) {
            try {
                search_ = answerSearch(indexedDevice(doc_, device_->summary.device), {std::nullopt, text.toStdString(), 0}).matcher;
            } catch (const QuestionError &) {
            }
        }
        cursorStep_ = device ? stepOfEvent(device->summary.steps, cursor.lastEntry()) : -1;
        min_ = minBytes;
        max_ = maxBytes;
        earlierStepOnly_ = earlierStepOnly;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &) const override
    {
        auto *model = static_cast<const LiveAllocationModel *>(sourceModel());
        const LiveBlockInfo &r = model->rows()[static_cast<size_t>(row)];
        if (r.size < min_ || (max_ && r.size > max_))
            return false;
        if (earlierStepOnly_) {
            if (!device_ || r.allocEvent.isNone() || device_->index->allocation(r.allocation).freeCompleted != kNever)
                return false;
            const int born = stepOfEvent(device_->summary.steps, r.allocEvent);
            // After the last step every step is earlier.
            if (born < 0 || (cursorStep_ >= 0 && born >= cursorStep_))
                return false;
        }
        if (unit_ && device_->summary.units->unitOf(r.allocation) != *unit_)
            return false;
        return !search_ || search_->matches(r.allocation);
    }

private:
    std::shared_ptr<const Document> doc_;
    const DeviceData *device_ = nullptr;
    std::shared_ptr<const AllocationSearch> search_;
    int cursorStep_ = -1;
    uint64_t min_ = 0, max_ = 0;
    bool earlierStepOnly_ = false;
    std::optional<int32_t> unit_; // made in this unit (ModuleUnits::kOutside: in none)
};

namespace {
// "4M", "512k", "1.5G" or plain bytes; 0 when empty or unreadable.
uint64_t parseSize(QString text)
{
    text = text.trimmed().toUpper().remove('B').remove('I');
    double factor = 1;
    if (text.endsWith('K'))
        factor = 1024.0;
    else if (text.endsWith('M'))
        factor = 1024.0 * 1024;
    else if (text.endsWith('G'))
        factor = 1024.0 * 1024 * 1024;
    if (factor > 1)
        text.chop(1);
    bool ok = false;
    const double v = text.toDouble(&ok);
    return ok && v > 0 ? static_cast<uint64_t>(v * factor) : 0;
}
} // namespace

LiveTensorsPage::LiveTensorsPage(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel(this);
    auto *bar = new QHBoxLayout;
    text_ = new QLineEdit(this);
    text_->setPlaceholderText(tr("Filter by frame, file, label, metadata or 0xaddress"));
    text_->setClearButtonEnabled(true);
    minSize_ = new QLineEdit(this);
    minSize_->setPlaceholderText(tr("min size (e.g. 1M)"));
    maxSize_ = new QLineEdit(this);
    maxSize_->setPlaceholderText(tr("max size"));
    earlierStep_ = new QCheckBox(tr("Created in an earlier step, never freed"), this);
    earlierStep_->setToolTip(tr("What a leak leaves behind: allocations made in a step before the cursor's that the trace never frees"));
    auto *exportButton = new QPushButton(tr("Export CSV…"), this);
    unitChip_ = new QLabel(this);
    unitChip_->setVisible(false);
    connect(unitChip_, &QLabel::linkActivated, this, [this] { setUnitFilter(std::nullopt, {}); });
    bar->addWidget(unitChip_);
    bar->addWidget(text_, 2);
    bar->addWidget(minSize_);
    bar->addWidget(maxSize_);
    bar->addWidget(earlierStep_);
    bar->addWidget(exportButton);
    model_ = new LiveAllocationModel(this);
    proxy_ = new LiveFilterProxy(this);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::EditRole);
    table_ = new QTableView(this);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(LiveAllocationModel::Size, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->setTabKeyNavigation(false); // Tab moves on to the next control, not the next cell
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setItemDelegateForColumn(LiveAllocationModel::Size, new CostBarDelegate(LiveAllocationModel::FractionRole, this));
    totals_ = new QLabel(this);
    empty_ = new QLabel(this);
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setWordWrap(true);
    connect(empty_, &QLabel::linkActivated, this, &LiveTensorsPage::clearFilters);
    results_ = new QStackedWidget(this);
    results_->addWidget(table_);
    results_->addWidget(empty_);
    layout->addWidget(title_);
    layout->addLayout(bar);
    layout->addWidget(results_, 1);
    layout->addWidget(totals_);

    auto refilter = [this] { setFilter(text_->text(), parseSize(minSize_->text()), parseSize(maxSize_->text())); };
    connect(text_, &QLineEdit::textChanged, this, refilter);
    // The size bounds apply as they are typed, like the text filter.
    connect(minSize_, &QLineEdit::textChanged, this, refilter);
    connect(maxSize_, &QLineEdit::textChanged, this, refilter);
    connect(earlierStep_, &QCheckBox::toggled, this, refilter);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export live allocations"), "live.csv", tr("CSV (*.csv)"));
        if (!path.isEmpty())
            if (const QString error = exportCsv(path); !error.isEmpty())
                totals_->setText(error);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (current.isValid())
            state_->setSelectedAllocation(AllocationId(current.data(LiveAllocationModel::AllocationRole).toUInt()));
    });
    // Hidden, it catches up when shown: every live block at the peak of a long run took 30 ms
    // of the first frame, and again at each later stage of the load.
    auto *refresh = new RefreshWhenShown(this, [this] { rebuild(); });
    connect(state_, &ViewState::selectedEventChanged, refresh, &RefreshWhenShown::request);
    connect(state_, &ViewState::deviceChanged, refresh, &RefreshWhenShown::request);
}

void LiveTensorsPage::setFilter(const QString &text, uint64_t minBytes, uint64_t maxBytes)
{
    proxy_->set(state_->document(), state_->deviceData(), cursor_, text, minBytes, maxBytes, earlierStep_->isChecked(), unit_);
    updateTotals();
}

void LiveTensorsPage::clearFilters()
{
    for (QLineEdit *edit : {text_, minSize_, maxSize_})
        edit->clear();
    earlierStep_->setChecked(false);
    setUnitFilter(std::nullopt, {});
}

void LiveTensorsPage::setUnitFilter(std::optional<int32_t> unit, const QString &name)
{
    unit_ = unit;
    unitChip_->setText(tr("Made in <b>%1</b> <a href='clear'>✕</a>").arg(name.toHtmlEscaped()));
    unitChip_->setToolTip(tr("Only allocations made while this unit ran; ✕ shows every unit's"));
    unitChip_->setVisible(unit.has_value());
    setFilter(text_->text(), parseSize(minSize_->text()), parseSize(maxSize_->text()));
}

void LiveTensorsPage::setEarlierStepOnly(bool on)
{
    earlierStep_->setChecked(on);
}

void LiveTensorsPage::rebuild()
{
    const DeviceData *d = state_->deviceData();
    if (!d) {
        model_->setAllocations(state_->document(), 0, {}, 0);
        return;
    }
    // The live-at question at the cursor (else the peak), every live allocation largest first.
    MomentAnswer answer = answerMoment(indexedDevice(state_->document(), state_->device()), {std::nullopt, state_->cursorMoment(Moment::peak()), SIZE_MAX});
    const TracePoint at = answer.point;
    const uint64_t count = answer.report.at->liveBlocks;
    std::vector<LiveBlockInfo> rows = std::move(answer.report.at->topLive);
    cursor_ = at;
    earlierStep_->setEnabled(!d->summary.steps.empty());
    model_->setAllocations(state_->document(), state_->device(), std::move(rows), d->index->activeAt(at), at);
    title_->setText(tr("<b>%1 allocations live after %2</b>%3").arg(count).arg(pointLabel(*d->index, at))
                        .arg(at == d->index->peak() ? tr(" (the peak)") : QString()));
    setFilter(text_->text(), parseSize(minSize_->text()), parseSize(maxSize_->text()));
    fitAllocationColumns(table_, *model_);
    updateTotals();
}

void LiveTensorsPage::updateTotals()
{
    uint64_t bytes = 0;
    for (int row = 0; row < proxy_->rowCount(); ++row)
        bytes += proxy_->index(row, LiveAllocationModel::Size).data(Qt::EditRole).toULongLong();
    totals_->setText(tr("Shown: %1 allocations, %2").arg(proxy_->rowCount()).arg(bytesText(bytes)));
    // An empty grid reads as "nothing is live"; say that the filters hid everything instead.
    const bool filteredAway = proxy_->rowCount() == 0 && model_->rowCount() > 0;
    empty_->setText(tr("None of the %1 live allocations matches the filters. <a href='clear'>Clear the filters</a>").arg(model_->rowCount()));
    results_->setCurrentWidget(filteredAway ? static_cast<QWidget *>(empty_) : table_);
}

QString LiveTensorsPage::totalsText() const
{
    return totals_->text();
}

QString LiveTensorsPage::exportCsv(const QString &path) const
{
    QSaveFile file(path);
    const QByteArray text = model_->csv().toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        return tr("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

} // namespace memlens
