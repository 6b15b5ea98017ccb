#include "summary/SummaryPage.h"

#include "state/ViewState.h"
#include "stacks/CostBarDelegate.h"
#include "summary/AllocationTableWidths.h"
#include "summary/FixList.h"
#include "summary/SummaryFigures.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"

#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace memlens {

SummaryPage::SummaryPage(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    facts_ = new QLabel(this);
    facts_->setWordWrap(true);
    facts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    figures_ = new QLabel(this);
    figures_->setTextFormat(Qt::RichText);
    figures_->setWordWrap(true);
    figures_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    connect(figures_, &QLabel::linkActivated, this, &SummaryPage::onLink);
    model_ = new LiveAllocationModel(this);
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(Qt::EditRole);
    table_ = new QTableView(this);
    table_->setModel(proxy);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setItemDelegateForColumn(LiveAllocationModel::Size, new CostBarDelegate(LiveAllocationModel::FractionRole, this));
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->sortByColumn(LiveAllocationModel::Size, Qt::DescendingOrder);
    table_->verticalHeader()->hide();
    table_->setTabKeyNavigation(false); // Tab moves on to the next control, not the next cell
    table_->setAlternatingRowColors(true);
    connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const AllocationId allocation(index.data(LiveAllocationModel::AllocationRole).toUInt());
        const DeviceData *d = state_->deviceData();
        if (!d)
            return;
        const EventId born = d->index->allocation(allocation).allocEvent;
        emit showOnTimeline(d->summary.peakIndex.value_or(born), allocation);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
        if (current.isValid())
            state_->setSelectedAllocation(AllocationId(current.data(LiveAllocationModel::AllocationRole).toUInt()));
    });
    fixHeading_ = new QLabel(this);
    fixHeading_->setWordWrap(true); // its capacity and moment lengthen it past a laptop's width
    fixHeading_->setTextFormat(Qt::RichText);
    connect(fixHeading_, &QLabel::linkActivated, this, [this] { emit showInEstimator(-1); });
    fixes_ = new FixList(this);
    fixes_->setMaximumHeight(fixes_->fontMetrics().height() * 9);
    connect(fixes_, &FixList::fixActivated, this, &SummaryPage::showInEstimator);
    // The figures and the advice scroll above the table, which a splitter sizes: on a laptop's
    // 700 px the grid lost its last rows under the advice, with no way to read them.
    auto *top = new QWidget;
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(facts_);
    topLayout->addWidget(figures_);
    topLayout->addWidget(fixHeading_);
    topLayout->addWidget(fixes_);
    topLayout->addStretch(1);
    scroll_ = new QScrollArea(this);
    scroll_->setWidget(top);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto *bottom = new QWidget;
    auto *bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    auto *heading = new QLabel(tr("<b>Largest allocations live at the peak</b> — double-click to show one on the timeline"), bottom);
    heading->setWordWrap(true);
    bottomLayout->addWidget(heading);
    bottomLayout->addWidget(table_, 1);
    split_ = new QSplitter(Qt::Vertical, this);
    split_->setChildrenCollapsible(false);
    split_->addWidget(scroll_);
    split_->addWidget(bottom);
    split_->setStretchFactor(0, 0); // on resizing the table takes the difference
    split_->setStretchFactor(1, 1);
    connect(split_, &QSplitter::splitterMoved, this, [this] { userSplit_ = true; });
    layout->addWidget(split_, 1);
    connect(state_, &ViewState::deviceChanged, this, &SummaryPage::refresh);
}

void SummaryPage::fitSplit()
{
    // The figures and the advice get the height they need, up to 60 % of the page; the table
    // keeps the rest. Once the user drags the splitter, it stays where they put it.
    if (userSplit_ || !split_->isVisible())
        return;
    const int total = split_->height() - split_->handleWidth();
    QWidget *content = scroll_->widget();
    const int width = scroll_->viewport()->width();
    const int need = (content->hasHeightForWidth() ? content->heightForWidth(width) : content->sizeHint().height()) + 2 * scroll_->frameWidth() + 4;
    const int top = std::min(need, total * 3 / 5);
    split_->setSizes({top, total - top});
}

void SummaryPage::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitSplit();
}

void SummaryPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    fitSplit();
}

QString SummaryPage::factsText() const
{
    return facts_->text() + "\n" + figures_->text();
}

void SummaryPage::refresh()
{
    const std::shared_ptr<const Document> &doc = state_->document();
    const DeviceData *d = state_->deviceData();
    if (!d) {
        facts_->setText(doc ? tr("%1: no device with segments or trace entries.").arg(QString::fromStdString(doc->fileName())) : QString());
        figures_->clear();
        fixHeading_->clear();
        fixes_->setAdvice(nullptr);
        model_->setAllocations(doc, 0, {}, 0);
        return;
    }
    const Advice &advice = d->advice;
    if (!d->advised) { // the window's first document: the advice follows the first frame
        fixHeading_->setText(tr("<b>What would help</b> — finding it…"));
        fixHeading_->setToolTip(QString());
        fixes_->setAdvice(nullptr);
    } else {
        fixHeading_->setText(tr("<b>What would help</b> at the %1, what fits first, least effort first — double-click one to see it applied "
                                "in the <a href='estimator'>estimator</a> · the run needed %2 reserved; each peak is what it needs with the fix%3")
                                 .arg(advice.oom ? tr("OOM") : tr("peak"), bytesText(advice.neededBytes),
                                      advice.capacity ? tr(" · capacity %1").arg(bytesText(*advice.capacity)) : QString()));
        fixHeading_->setToolTip(QString::fromStdString(advice.capacityHow));
        fixes_->setAdvice(&advice);
    }
    const DeviceSummary &s = d->summary;
    facts_->setText(SummaryFigures::factsLine(*doc, s));
    if (!d->summarised) { // the first frame's document: the figures follow in a moment
        figures_->setText(tr("<i>Summarising…</i>"));
        model_->setAllocations(doc, s.device, {}, s.peakActiveBytes, d->index->peak());
        return;
    }
    figures_->setText(SummaryFigures::html(*doc, *d));
    model_->setAllocations(doc, s.device, s.topLiveAtPeak, s.peakActiveBytes, d->index->peak());
    fitAllocationColumns(table_, *model_);
    QTimer::singleShot(0, this, &SummaryPage::fitSplit); // once the labels have their new text laid out
}

void SummaryPage::showHealth()
{
    const DeviceData *d = state_->deviceData();
    if (!d)
        return;
    const DeviceSummary &s = d->summary;
    QString text;
    if (s.coverage.truncated) {
        text += tr("<p><b>The trace is truncated.</b> It does not reach back to the start of recording: the ring buffer "
                   "(<code>max_entries</code>) dropped older entries, or recording began while memory was in use. Evidence:</p><ul>");
        for (const std::string &e : s.coverage.evidence)
            text += "<li>" + QString::fromStdString(e).toHtmlEscaped() + "</li>";
        text += tr("</ul><p>%1 blocks (%2) were alive before the first entry. On the timeline they are hatched and alive from "
                   "its start; they have no alloc entry, so no time of birth, and a stack only where the final snapshot lists one.</p>")
                    .arg(s.coverage.ghostBlocks)
                    .arg(bytesText(s.coverage.ghostBytes));
    }
    if (!s.warnings.empty()) {
        text += tr("<p><b>Inconsistencies.</b> The file decodes, but these do not add up; the figures leave them out where they "
                   "would be nonsense:</p><ul>");
        for (const FileWarning &w : s.warnings)
            text += QStringLiteral("<li><code>%1</code> — %2</li>").arg(QString::fromStdString(w.kind), QString::fromStdString(w.message).toHtmlEscaped());
        text += "</ul>";
    }
    auto *box = new QMessageBox(QMessageBox::NoIcon, tr("File health"), text, QMessageBox::Close, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SummaryPage::onLink(const QString &link)
{
    const std::shared_ptr<const Document> &doc = state_->document();
    const DeviceData *d = state_->deviceData();
    if (!d)
        return;
    if (link == "settings") {
        QString text = "<table>";
        for (const auto &[k, v] : doc->snapshot->allocatorSettings)
            text += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td></tr>")
                        .arg(QString::fromStdString(k).toHtmlEscaped(), QString::fromStdString(v).toHtmlEscaped());
        auto *box = new QMessageBox(QMessageBox::NoIcon, tr("Allocator settings"), text + "</table>", QMessageBox::Close, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    if (link == "health") {
        showHealth();
        return;
    }
    if (link.startsWith("event:"))
        emit showOnTimeline(EventId(link.mid(6).toUInt()), AllocationId::none());
    else if (link.startsWith("oom:"))
        emit showOnTimeline(EventId(link.mid(4).toUInt()), AllocationId::none());
    else if (link.startsWith("segments:"))
        emit showSegments(EventId(link.mid(9).toUInt()));
    else if (link == "steps")
        emit showSteps();
    else if (link == "units")
        emit showUnits();
    else if (link == "layers")
        emit showLayers();
    else if (link == "leaks" && d->index->eventCount() > 0)
        emit showLeaks(EventId(static_cast<uint32_t>(d->index->eventCount() - 1)));
}

} // namespace memlens
