#include "document/DocumentView.h"

#include "pipeline/RankStitch.h"

#include "document/LoadProgressPage.h"
#include "jobs/DocumentLoader.h"
#include "state/ViewState.h"
#include "export/ViewExport.h"
#include "notes/NoteEditor.h"
#include "notes/NoteListPanel.h"
#include "notes/NoteSet.h"
#include "notes/NoteText.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentTimelineView.h"
#include "segments/SegmentsPage.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "steps/StepsView.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"
#include "summary/LiveTensorsPage.h"
#include "summary/SummaryPage.h"
#include "timeline/AllocationBandsPlottable.h"
#include "timeline/CategoryTimelineView.h"
#include "timeline/TimelineView.h"
#include "layers/LayersPage.h"
#include "units/UnitsPage.h"

#include <algorithm>
#include <utility>
#include <QFileInfo>
#include <QComboBox>
#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace memlens {

DocumentView::DocumentView(QWidget *parent)
    : QWidget(parent), state_(new ViewState(this)), loader_(new DocumentLoader(this)), refresher_(new DocumentLoader(this)), notes_(new NoteSet(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    stack_ = new QStackedWidget(this);
    outer->addWidget(stack_);

    progressPage_ = new LoadProgressPage(stack_);
    connect(progressPage_, &LoadProgressPage::cancelRequested, this, &DocumentView::cancelLoad);
    stack_->addWidget(progressPage_);

    stack_->addWidget(buildContent());
    connectPages();
}

DocumentView::~DocumentView() = default;

const std::shared_ptr<const Document> &DocumentView::document() const
{
    return state_->document();
}

void DocumentView::load(const QString &path)
{
    path_ = path;
    progressPage_->start(tr("Opening %1…").arg(shownName()));
    stack_->setCurrentWidget(progressPage_);
    loader_->load(path);
}

QString DocumentView::shownName() const
{
    // The tab's name, not the full path (the tab's tooltip has that): a long path filled the
    // progress page's line.
    return displayName_.isEmpty() ? QFileInfo(path_).fileName() : displayName_;
}

void DocumentView::loadStitched(const QString &folder, int rank)
{
    path_ = QString::fromStdString(stitchedRunName(folder.toStdString(), rank));
    progressPage_->start(tr("Stitching the dumps of rank %1 in %2…").arg(rank).arg(folder));
    stack_->setCurrentWidget(progressPage_);
    loader_->loadStitched(folder, rank);
}

void DocumentView::refreshStitched(const QString &folder, int rank)
{
    refresher_->loadStitched(folder, rank);
}

void DocumentView::setSnapshotCache(std::shared_ptr<const SnapshotCache> cache)
{
    refresher_->setCache(cache);
    loader_->setCache(std::move(cache));
}

void DocumentView::cancelLoad()
{
    loader_->cancel();
}

void DocumentView::fillDevices()
{
    const Document &doc = *state_->document();
    // C++ frames mean the run recorded stacks="all"; looked up once, not per status update.
    cppFrames_ = false;
    for (size_t id = 0; id < doc.snapshot->frames.size() && !cppFrames_; ++id) {
        const std::string_view file = doc.snapshot->strings.at(doc.snapshot->frames.at(FrameId(static_cast<uint32_t>(id))).file);
        cppFrames_ = file.ends_with(".cpp") || file.ends_with(".h") || file == "??";
    }
    const QSignalBlocker blocker(device_);
    device_->clear();
    for (const auto &[d, data] : doc.devices)
        device_->addItem(QString::fromStdString(doc.snapshot->deviceName(d)), d);
    device_->setCurrentIndex(device_->findData(state_->device()));
    device_->setEnabled(device_->count() > 1);
    deviceRow_->setVisible(device_->count() > 0);
}

void DocumentView::showDocument(std::shared_ptr<const Document> doc)
{
    showStage(std::move(doc), false);
}

void DocumentView::showStage(std::shared_ptr<const Document> doc, bool timelineFollows)
{
    path_ = QString::fromStdString(doc->path);
    state_->setDocument(std::move(doc));
    fillDevices();
    // Each kind of file shows the pages that have something to show; those that need the
    // timeline's index wait for it.
    const Document &d = *state_->document();
    const bool perAllocation = !d.devices.empty();
    const bool hasSegments = !d.snapshot->segments.empty() || d.snapshot->facts.format != FileFormat::ChromeTrace;
    const bool hasSteps = std::any_of(d.devices.begin(), d.devices.end(), [](const auto &device) { return !device.second.summary.steps.empty(); });
    const bool hasUnits = std::any_of(d.devices.begin(), d.devices.end(), [](const auto &device) { return device.second.summary.units != nullptr; });
    const bool hasLayers = std::any_of(d.devices.begin(), d.devices.end(), [](const auto &device) { return device.second.summary.layers.has_value(); });
    // A page asked for while the file was read is shown when it can be (see showPage). With the
    // timeline set next its pages stay enabled and the page shown stays: the way through the
    // Summary page and back laid its text out at every stage (~10 ms on a long run).
    if (!timelineFollows) {
        if (!pendingPage_ && currentPageKind() != Page::Summary)
            pendingPage_ = currentPageKind();
        tabs_->setCurrentWidget(summary_);
    }
    for (Page page : kPages) {
        const bool shown = page == Page::Categories ? d.snapshot->categories.has_value()
                           : page == Page::Segments || page == Page::SegmentTimeline ? perAllocation && hasSegments
                           : page == Page::Steps    ? hasSteps
                           : page == Page::Modules  ? hasUnits
                           : page == Page::Layers   ? hasLayers
                                                    : perAllocation;
        tabs_->setTabVisible(tabs_->indexOf(pageWidget(page)), shown);
        tabs_->setTabEnabled(tabs_->indexOf(pageWidget(page)),
                             timelineFollows || page == Page::Summary || page == Page::Steps || page == Page::Layers || page == Page::Categories);
    }
    if (!perAllocation && d.snapshot->categories)
        tabs_->setCurrentWidget(categories_);
    if (timelineFollows)
        return; // enablePages() shows the tabs, on the page asked for
    tabs_->setTabToolTip(tabs_->indexOf(timeline_), tr("Preparing the timeline…"));
    stack_->setCurrentIndex(1);
    emit statusChanged(tr("%1 · preparing the timeline…").arg(QString::fromStdString(d.fileName())));
}

void DocumentView::enablePages()
{
    for (Page page : kPages)
        tabs_->setTabEnabled(tabs_->indexOf(pageWidget(page)), true);
    tabs_->setTabToolTip(tabs_->indexOf(timeline_), QString());
    if (const std::optional<Page> page = std::exchange(pendingPage_, std::nullopt); page && tabs_->isTabVisible(tabs_->indexOf(pageWidget(*page))))
        tabs_->setCurrentWidget(pageWidget(*page));
    stack_->setCurrentIndex(1);
    emit statusChanged(statusText());
}

void DocumentView::setDocument(const LoadedDocument &loaded)
{
    showStage(loaded.document, loaded.timeline && loaded.timeline->document == loaded.document);
    if (state_->setTimeline(loaded.timeline))
        enablePages();
}

void DocumentView::takeAdvice(std::shared_ptr<const TimelineLayouts> advised)
{
    if (swapStage(std::move(advised)))
        emit loaded();
}

bool DocumentView::swapStage(std::shared_ptr<const TimelineLayouts> advised)
{
    if (!advised || !state_->timeline() || advised->layouts != state_->timeline()->layouts)
        return false; // not the run on screen
    const int page = tabs_->currentIndex();
    const int device = state_->device();
    const VisibleRange range = state_->visibleRange();
    const std::optional<EventId> event = state_->selectedEvent();
    const AllocationId allocation = state_->selectedAllocation();
    showStage(advised->document, true);
    if (!state_->setTimeline(std::move(advised)))
        return false;
    state_->setDevice(device);
    state_->setVisibleRange(range);
    state_->setSelectedEvent(event);
    state_->setSelectedAllocation(allocation);
    enablePages();
    // The page shown stays, unless the summary hid it (a page the file turned out not to have).
    if (tabs_->isTabVisible(page))
        tabs_->setCurrentIndex(page);
    return true;
}

QWidget *DocumentView::pageWidget(Page page) const
{
    switch (page) {
    case Page::Summary: return summary_;
    case Page::Timeline: return timeline_;
    case Page::Steps: return steps_;
    case Page::Segments: return segments_;
    case Page::SegmentTimeline: return segmentTimeline_;
    case Page::Stacks: return stacks_;
    case Page::Live: return live_;
    case Page::Modules: return units_;
    case Page::Layers: return layers_;
    case Page::Categories: return categories_;
    }
    return summary_;
}

void DocumentView::showPage(Page page)
{
    // A disabled tab cannot be current: QTabWidget showed the next enabled one instead (View ▸
    // Timeline while the timeline was prepared went to Steps, and stayed there).
    const int tab = tabs_->indexOf(pageWidget(page));
    if (!tabs_->isTabEnabled(tab) && tabs_->isTabVisible(tab)) {
        pendingPage_ = page;
        return;
    }
    // A page this file does not have (Steps without steps, By unit without units): its hidden
    // tab's empty chart showed with no tab selected. Nothing happens.
    if (!tabs_->isTabVisible(tab) && state_->document())
        return;
    pendingPage_.reset();
    tabs_->setCurrentWidget(pageWidget(page));
}

bool DocumentView::hasPage(Page page) const
{
    return !state_->document() || tabs_->isTabVisible(tabs_->indexOf(pageWidget(page)));
}

QWidget *DocumentView::currentPage() const
{
    return tabs_->currentWidget();
}

Page DocumentView::currentPageKind() const
{
    for (Page page : kPages) {
        if (tabs_->currentWidget() == pageWidget(page))
            return page;
    }
    return Page::Summary;
}

ExportFooter DocumentView::exportFooter(const QString &version) const
{
    ExportFooter footer;
    footer.version = version;
    const DeviceData *d = state_->deviceData();
    if (!d)
        return footer;
    footer.file = displayName_.isEmpty() ? QString::fromStdString(state_->document()->fileName()) : displayName_;
    footer.device = QString::fromStdString(d->summary.name);
    const std::optional<EventId> e = state_->selectedEvent();
    footer.moment = e ? eventLabel(*d->index, *e)
                    : d->summary.peakIndex ? tr("peak at %1").arg(eventLabel(*d->index, *d->summary.peakIndex))
                                           : QString();
    return footer;
}

void DocumentView::setDetailsVisible(bool visible)
{
    details_->parentWidget()->setVisible(visible);
}

NoteEditor *DocumentView::noteEditor(NoteView view) const
{
    switch (view) {
    case NoteView::Timeline: return timelineEditor_;
    case NoteView::Segments: return segmentsEditor_;
    case NoteView::FlameGraph: return flameEditor_;
    }
    return nullptr;
}

void DocumentView::setNoteTool(std::optional<NoteKind> kind)
{
    const Page page = currentPageKind();
    if (kind && page != Page::Timeline && page != Page::Segments && page != Page::Stacks)
        showPage(Page::Timeline);
    for (NoteEditor *editor : {timelineEditor_, segmentsEditor_, flameEditor_}) {
        if (editor->tool() != kind)
            editor->setTool(kind);
    }
    if (kind)
        emit statusChanged(tr("Click or drag on the timeline, segment map or flame graph to draw a %1 (Esc cancels)").arg(noteKindName(*kind)));
    else
        emit statusChanged(statusText());
}

void DocumentView::jumpToNote(int index)
{
    if (index < 0 || index >= notes_->items().size())
        return;
    const Note a = notes_->items()[index];
    notes_->setSelected(index);
    if (a.view == NoteView::Timeline) {
        showPage(Page::Timeline);
        timeline_->revealEvent(EventId(static_cast<uint32_t>(std::max(0.0, a.x))));
        return;
    }
    if (a.event >= 0)
        state_->setSelectedEvent(EventId(static_cast<uint32_t>(a.event)));
    if (a.view == NoteView::Segments) {
        showPage(Page::Segments);
        if (const auto at = segments_->map()->headPixel(a))
            segments_->revealMapPoint(*at);
    } else {
        showPage(Page::Stacks);
    }
}

bool DocumentView::editNote(int index)
{
    if (index < 0 || index >= notes_->items().size())
        return false;
    NoteEditor *editor = noteEditor(notes_->items()[index].view);
    return editor && editor->editText(index);
}

void DocumentView::addPeakNote()
{
    const DeviceData *d = state_->deviceData();
    if (!d || !d->summary.peakIndex)
        return;
    const DeviceSummary &s = d->summary;
    notes_->add(NoteText::timelineNote(NoteText::peak(*state_->document()->snapshot, s), double(s.peakIndex->index()), double(s.peakActiveBytes)));
}

bool DocumentView::addOomNote()
{
    const DeviceData *d = state_->deviceData();
    if (!d || d->summary.ooms.empty())
        return false;
    const OomDiagnosis *chosen = &d->summary.ooms.front();
    for (const OomDiagnosis &o : d->summary.ooms) {
        if (o.event == state_->selectedEvent())
            chosen = &o;
    }
    const QString text = NoteText::oom(*chosen);
    if (currentPageKind() != Page::Segments) {
        notes_->add(NoteText::timelineNote(text, double(chosen->event.index()), double(d->index->activeAt(TracePoint::after(chosen->event)))));
        return true;
    }
    // On the segment map the note goes on the largest hole of the pool the request needed.
    state_->setSelectedEvent(chosen->event);
    const AllocatorState &st = segments_->map()->state();
    Note a;
    a.view = NoteView::Segments;
    a.text = text;
    a.event = chosen->event.index();
    if (chosen->largestFreeBlock > 0) {
        // Its middle: its first byte drew the arrow on the hole's edge, a pixel from the block before.
        a.x = static_cast<double>(chosen->largestFreeAddress + chosen->largestFreeBlock / 2);
        a.text += NoteText::largestHoleHere(*chosen);
    } else if (!st.segments.empty()) {
        a.x = static_cast<double>(st.segments.front().addr);
    } else {
        return false;
    }
    notes_->add(a);
    if (const auto at = segments_->map()->headPixel(a))
        segments_->revealMapPoint(*at);
    return true;
}

void DocumentView::addNoteAtCursor(const QString &text)
{
    const DeviceData *d = state_->deviceData();
    if (!d || d->index->eventCount() == 0)
        return;
    const EventId e = state_->selectedEvent().value_or(d->summary.peakIndex.value_or(EventId(0)));
    notes_->add(NoteText::timelineNote(text, double(e.index()), double(d->index->activeAt(TracePoint::after(e)))));
}

void DocumentView::showAllocation(AllocationId allocation)
{
    const DeviceData *d = state_->deviceData();
    if (!d || allocation.index() >= d->index->allocationCount()) { // none is beyond every allocation
        details_->clear();
        return;
    }
    details_->setHtml(allocationDetailsHtml(*state_->document(), *d->index, allocation, false));
}

QString DocumentView::statusText() const
{
    const DeviceData *d = state_->deviceData();
    if (!d)
        return {};
    const FileFacts &f = state_->document()->snapshot->facts;
    // The tab's name (rank0/snapshot.pickle beside rank1/snapshot.pickle), not the bare file name.
    QString text = tr("%1 · %2%3 · %4 events").arg(shownName(), QString::fromLatin1(kFileFormatNames.name(f.format)),
                                                   f.compression == Compression::None ? QString() : "+" + QString::fromLatin1(kCompressionNames.name(f.compression)))
                       .arg(d->index->eventCount());
    QStringList features;
    if (f.hasFrames)
        features << (cppFrames_ ? tr("Python and C++ stacks") : tr("Python stacks"));
    if (f.hasPhases)
        features << tr("phases");
    if (f.hasCompileContext)
        features << tr("compile context");
    if (!features.isEmpty())
        text += " · " + features.join(", ");
    if (const std::optional<EventId> e = state_->selectedEvent())
        text += tr(" · cursor at %1").arg(eventLabel(*d->index, *e));
    return text;
}

} // namespace memlens
