#include "summary/SummaryPage.h"

#include "state/ViewState.h"
#include "stacks/CostBarDelegate.h"
#include "summary/FixList.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"

#include <QDateTime>
#include <QHeaderView>
#include <QTimeZone>
#include <QLabel>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTableView>
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
    fixHeading_->setTextFormat(Qt::RichText);
    connect(fixHeading_, &QLabel::linkActivated, this, [this] { emit showInEstimator(-1); });
    fixes_ = new FixList(this);
    fixes_->setMaximumHeight(fixes_->fontMetrics().height() * 9);
    connect(fixes_, &FixList::fixActivated, this, &SummaryPage::showInEstimator);
    layout->addWidget(facts_);
    layout->addWidget(figures_);
    layout->addWidget(fixHeading_);
    layout->addWidget(fixes_);
    auto *heading = new QLabel(tr("<b>Largest allocations live at the peak</b> — double-click to show one on the timeline"), this);
    layout->addWidget(heading);
    layout->addWidget(table_, 1);
    connect(state_, &ViewState::deviceChanged, this, &SummaryPage::refresh);
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
    fixHeading_->setText(tr("<b>What would help</b> at the %1, what fits first, least effort first — double-click one to see it applied "
                            "in the <a href='estimator'>estimator</a>%2")
                             .arg(advice.oom ? tr("OOM") : tr("peak"),
                                  advice.capacity ? tr(" · capacity %1").arg(bytesText(*advice.capacity)) : QString()));
    fixHeading_->setToolTip(QString::fromStdString(advice.capacityHow));
    fixes_->setAdvice(&advice);
    const FileFacts &f = doc->snapshot->facts;
    const DeviceSummary &s = d->summary;
    QStringList features;
    if (f.hasTimes)
        features << tr("times");
    if (f.hasFrames)
        features << tr("stacks");
    if (f.hasPhases)
        features << tr("record_function phases");
    if (f.hasCompileContext)
        features << tr("compile context");
    if (f.hasAllocatorSettings)
        features << tr("allocator settings");
    QString format = QString::fromLatin1(kFileFormatNames.name(f.format));
    if (f.pickleProtocol)
        format += tr(" protocol %1").arg(f.pickleProtocol);
    if (f.compression != Compression::None)
        format += ", " + QString::fromLatin1(kCompressionNames.name(f.compression));
    const std::string name = doc->snapshot->deviceName(s.device);
    facts_->setText(tr("%1 — %2; %3: %4 trace entries; recorded: %5")
                        .arg(QString::fromStdString(doc->fileName()), format)
                        .arg(name == "host" ? tr("pinned host memory (host)") : QString::fromStdString(name))
                        .arg(QString::fromStdString(groupDigits(s.entries)))
                        .arg(features.isEmpty() ? tr("nothing beyond the final state") : features.join(", ")));

    QString html = "<table cellspacing='6'>";
    auto row = [&](const QString &k, const QString &v) { html += "<tr><td><b>" + k + "</b></td><td>" + v + "</td></tr>"; };
    const QString phase = QString::fromStdString(s.peakPhase);
    QString peak = s.peakIndex ? QStringLiteral("<a href='event:%3'>%1</a> at %2")
                                     .arg(bytesText(s.peakActiveBytes), eventLabel(*d->index, *s.peakIndex).toHtmlEscaped())
                                     .arg(s.peakIndex->index())
                               : tr("%1 before the trace began").arg(bytesText(s.peakActiveBytes));
    if (!phase.isEmpty())
        peak += tr(", during <i>%1</i>").arg(phase.toHtmlEscaped());
    peak += tr(", %1 live blocks").arg(s.liveBlocksAtPeak);
    row(tr("Peak active"), peak);
    row(tr("Peak reserved"), bytesText(s.peakReservedBytes));
    if (std::any_of(s.poolsAtEnd.begin(), s.poolsAtEnd.end(), [](const PoolShare &p) { return p.isPrivate(); })) {
        QStringList pools;
        for (const PoolShare &p : s.poolsAtEnd) {
            const QString id = p.isPrivate() ? QStringLiteral("(%1, %2)").arg(p.pool.first).arg(p.pool.second) : tr("default");
            pools << tr("<b>%1</b>: %2 reserved, %3 allocated%4")
                         .arg(id, bytesText(p.reserved), bytesText(p.allocated),
                              p.isPrivate() ? " — " + QString::fromStdString(p.madeBy).toHtmlEscaped() : QString());
        }
        row(tr("Memory pools"), pools.join(QStringLiteral("<br/>")));
    }
    QStringList oomDevices;
    for (const auto &[number, device] : doc->devices) {
        if (!device.summary.ooms.empty())
            oomDevices << QString::fromStdString(doc->snapshot->deviceName(number));
    }
    if (doc->devices.size() > 1 && !oomDevices.isEmpty())
        row(tr("Ran out of memory on"), tr("%1 (of %2 devices)").arg(oomDevices.join(", ")).arg(doc->devices.size()));
    row(tr("Before the trace"), tr("%1 in %2 blocks, %3 reserved").arg(bytesText(s.initialBytes)).arg(s.initialBlocks).arg(bytesText(s.startReservedBytes)));
    if (s.coverage.truncated)
        row(tr("Truncated trace"), tr("the trace does not reach back to the start of recording; it covers from %1. "
                                      "%2 ghost blocks (%3) are older than its first entry — <a href='health'>why…</a>")
                                       .arg(s.coverage.coversFromUs ? QDateTime::fromMSecsSinceEpoch(*s.coverage.coversFromUs / 1000, QTimeZone::utc())
                                                                          .toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz 'UTC'"))
                                                                    : tr("its first entry"))
                                       .arg(s.coverage.ghostBlocks)
                                       .arg(bytesText(s.coverage.ghostBytes)));
    if (!s.warnings.empty()) {
        uint64_t count = 0;
        for (const FileWarning &w : s.warnings)
            count += w.count;
        row(tr("File health"), tr("<span style='color:#d08000'>⚠</span> <a href='health'>%n inconsistencies</a> in this file: ", nullptr,
                                  static_cast<int>(count)) +
                                   QString::fromStdString(s.warnings.front().message).toHtmlEscaped() +
                                   (s.warnings.size() > 1 ? tr(" and %n more kinds", nullptr, static_cast<int>(s.warnings.size() - 1)) : QString()));
    }
    for (const OomDiagnosis &o : s.ooms)
        row(tr("Out of memory"), tr("<a href='oom:%1'>%2 requested</a> at %3; the device reported %4 free%8; %5 free inside "
                                    "reserved segments, largest free block %6 — <a href='segments:%1'><b>%7</b></a>")
                                      .arg(o.event.index())
                                      .arg(bytesText(o.requested), eventLabel(*d->index, o.event).toHtmlEscaped(), bytesText(o.deviceFree), bytesText(o.reservedFree),
                                           bytesText(o.largestFreeBlock), o.fragmentation ? tr("fragmentation") : tr("capacity"),
                                           o.perProcessLimit() ? tr(", so %1").arg(QString::fromLatin1(kProcessLimitFinding)) : QString()));
    QStringList byCategory;
    for (int c = 0; c < kCategoryCount; ++c) {
        if (const uint64_t bytes = s.categoryBytesAtPeak[static_cast<size_t>(c)]) {
            const std::string_view name = categoryName(static_cast<Category>(c));
            byCategory << QStringLiteral("%1 %2").arg(QString::fromLatin1(name.data(), qsizetype(name.size())).replace('_', ' '), bytesText(bytes));
        }
    }
    if (!byCategory.isEmpty())
        row(tr("At the peak"), byCategory.join(QStringLiteral(" · ")));
    if (!s.steps.empty()) {
        const StepSummary &highest = highestStep(s.steps);
        const size_t partial = s.steps.size() - wholeStepCount(s.steps);
        const QString cut = partial ? tr(" (%1 cut by the window, partial)").arg(partial) : QString();
        row(tr("Steps"), tr("<a href='steps'>%1 steps</a>%6; the highest peak, %2, in step %3; allocated at the end of a step %4 → %5")
                             .arg(s.steps.size())
                             .arg(bytesText(highest.peakActiveBytes))
                             .arg(highest.index)
                             .arg(bytesText(s.steps.front().endAllocatedBytes), bytesText(s.steps.back().endAllocatedBytes), cut));
    }
    if (!s.leakSuspects.empty()) {
        QStringList suspects;
        for (size_t i = 0; i < s.leakSuspects.size() && i < 3; ++i) {
            const LeakSuspect &l = s.leakSuspects[i];
            const QString site = siteLabel(*doc->snapshot, l.stack);
            suspects << tr("%1 from <code>%2</code>, grew in %3 of %4 steps").arg(bytesText(l.bytes), site.toHtmlEscaped()).arg(l.steps).arg(s.steps.size());
        }
        if (s.leakSuspects.size() > 3)
            suspects << tr("%n more", nullptr, static_cast<int>(s.leakSuspects.size() - 3));
        row(tr("Leak suspects"), suspects.join(QStringLiteral("<br/>")) + tr(" — <a href='leaks'>show what piled up</a>"));
    }
    if (!s.whyNoLeakSuspects.empty())
        row(tr("Leak suspects"), tr("none: %1").arg(QString::fromStdString(s.whyNoLeakSuspects).toHtmlEscaped()));
    if (s.traceTotals) {
        row(tr("Allocator totals"), tr("Total Allocated peaked at %1 (event %2); at the end %3 allocated, %4 reserved. "
                                       "A profiler trace records no segments or blocks.")
                                        .arg(bytesText(s.traceTotals->peakAllocated))
                                        .arg(s.traceTotals->peakIndex.index())
                                        .arg(bytesText(s.traceTotals->finalAllocated), bytesText(s.traceTotals->finalReserved)));
    } else {
        row(tr("At the end"), tr("%1 reserved in %2 segments; %3 allocated; %4 free in reserved, largest free block %5 "
                                 "(external fragmentation %6 %)")
                                  .arg(bytesText(s.final.reserved))
                                  .arg(s.final.segments)
                                  .arg(bytesText(s.final.allocated), bytesText(s.final.inactive), bytesText(s.final.largestInactive))
                                  .arg(qRound(s.final.externalFragmentation * 100)));
    }
    const auto &settings = doc->snapshot->allocatorSettings;
    if (!settings.empty()) {
        QString conf;
        for (const auto &[k, v] : settings) {
            if (k == "PYTORCH_CUDA_ALLOC_CONF")
                conf = QString::fromStdString(v);
        }
        row(tr("Allocator"), tr("PYTORCH_CUDA_ALLOC_CONF=%1 · <a href='settings'>all %2 settings…</a>")
                                 .arg(conf.isEmpty() ? tr("(unset)") : conf.toHtmlEscaped())
                                 .arg(settings.size()));
    }
    html += "</table>";
    figures_->setText(html);
    model_->setAllocations(doc, s.device, s.topLiveAtPeak, s.peakActiveBytes, s.peakIndex.value_or(kBeforeTrace));
    table_->resizeColumnsToContents();
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
    else if (link == "leaks" && d->index->eventCount() > 0)
        emit showLeaks(d->index->lastEvent());
}

} // namespace memlens
