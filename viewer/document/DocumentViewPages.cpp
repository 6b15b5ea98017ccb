// DocumentView's pages: how they are laid out, and how they ask each other (a file of its own:
// DocumentView.cpp kept the loading and the document).
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

// The document's own page: the device row, the tabs of pages, the details and the notes beside them.
QWidget *DocumentView::buildContent()
{
    auto *content = new QWidget(stack_);
    auto *cl = new QVBoxLayout(content);
    cl->setContentsMargins(4, 4, 4, 4);
    deviceRow_ = new QWidget(content);
    auto *top = new QHBoxLayout(deviceRow_);
    top->setContentsMargins(0, 0, 0, 0);
    auto *deviceLabel = new QLabel(tr("&Device:"), deviceRow_);
    top->addWidget(deviceLabel);
    device_ = new QComboBox(deviceRow_);
    deviceLabel->setBuddy(device_);
    device_->setToolTip(tr("Snapshots can hold several GPUs; profiler traces also CPU memory"));
    top->addWidget(device_);
    top->addStretch();
    cl->addWidget(deviceRow_);
    auto *split = new QSplitter(Qt::Horizontal, content);
    tabs_ = new QTabWidget(split);
    summary_ = new SummaryPage(state_, tabs_);
    timeline_ = new TimelineView(state_, tabs_);
    tabs_->addTab(summary_, tr("Summary"));
    segments_ = new SegmentsPage(state_, tabs_);
    tabs_->addTab(timeline_, tr("Timeline"));
    steps_ = new StepsView(state_, tabs_);
    tabs_->addTab(steps_, tr("Steps"));
    tabs_->addTab(segments_, tr("Segments"));
    segmentTimeline_ = new SegmentTimelineView(state_, tabs_);
    tabs_->addTab(segmentTimeline_, tr("Segments over time"));
    stacks_ = new StacksPage(state_, tabs_);
    tabs_->addTab(stacks_, tr("Stacks"));
    live_ = new LiveTensorsPage(state_, tabs_);
    tabs_->addTab(live_, tr("Live"));
    units_ = new UnitsPage(state_, tabs_);
    tabs_->addTab(units_, tr("By unit"));
    layers_ = new LayersPage(state_, tabs_);
    tabs_->addTab(layers_, tr("By layer"));
    categories_ = new CategoryTimelineView(state_, tabs_);
    tabs_->addTab(categories_, tr("Categories"));
    auto *side = new QSplitter(Qt::Vertical, split);
    details_ = new QTextBrowser(side);
    details_->setPlaceholderText(tr("Select an allocation to see its size, lifetime and full stack."));
    // Narrow enough that pages and panel fit a 1024 px screen (at 260 the window grew past it).
    details_->setMinimumWidth(180);
    noteList_ = new NoteListPanel(notes_, side);
    side->addWidget(details_);
    side->addWidget(noteList_);
    side->setStretchFactor(0, 3);
    side->setStretchFactor(1, 1);
    connect(tabs_, &QTabWidget::tabBarClicked, this, [this] { pendingPage_.reset(); });
    split->addWidget(tabs_);
    split->addWidget(side);
    timeline_->setNotes(notes_);
    segments_->map()->setNotes(notes_);
    stacks_->flameGraph()->setNotes(notes_);
    timelineEditor_ = new NoteEditor(timeline_->plot(), timeline_->bands(), notes_, state_);
    segmentsEditor_ = new NoteEditor(segments_->map(), segments_->map(), notes_, state_);
    flameEditor_ = new NoteEditor(stacks_->flameGraph(), stacks_->flameGraph(), notes_, state_);
    for (NoteEditor *editor : {timelineEditor_, segmentsEditor_, flameEditor_})
        connect(editor, &NoteEditor::toolFinished, this, [this] { setNoteTool({}); });
    connect(noteList_, &NoteListPanel::jumpRequested, this, &DocumentView::jumpToNote);
    connect(noteList_, &NoteListPanel::editRequested, this, &DocumentView::editNote);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    cl->addWidget(split, 1);
    return content;
}

// What the pages ask of each other, and what the loaders deliver.
void DocumentView::connectPages()
{
    connect(device_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            state_->setDevice(device_->itemData(i).toInt());
    });
    // The device can change elsewhere too (sessions, render --device, the ranks page).
    connect(state_, &ViewState::deviceChanged, this, [this](int device) {
        const QSignalBlocker blocker(device_);
        device_->setCurrentIndex(device_->findData(device));
    });
    connect(summary_, &SummaryPage::showOnTimeline, this, [this](EventId event, AllocationId allocation) {
        tabs_->setCurrentWidget(timeline_);
        timeline_->revealEvent(event);
        if (!allocation.isNone())
            state_->setSelectedAllocation(allocation);
        timeline_->setFocus();
    });
    connect(summary_, &SummaryPage::showSegments, this, [this](EventId event) {
        state_->setSelectedEvent(event);
        tabs_->setCurrentWidget(segments_);
    });
    connect(steps_, &StepsView::showTimeline, this, [this] { tabs_->setCurrentWidget(timeline_); });
    connect(layers_, &LayersPage::showTimeline, this, [this] { tabs_->setCurrentWidget(timeline_); });
    connect(summary_, &SummaryPage::showInEstimator, this, &DocumentView::estimatorRequested);
    connect(summary_, &SummaryPage::showSteps, this, [this] { tabs_->setCurrentWidget(steps_); });
    connect(summary_, &SummaryPage::showUnits, this, [this] { tabs_->setCurrentWidget(units_); });
    connect(summary_, &SummaryPage::showLayers, this, [this] { tabs_->setCurrentWidget(layers_); });
    connect(summary_, &SummaryPage::showLeaks, this, [this](EventId event) {
        state_->setSelectedEvent(event);
        live_->setEarlierStepOnly(true);
        tabs_->setCurrentWidget(live_);
    });
    connect(segments_, &SegmentsPage::showLiveTensors, this, [this] { tabs_->setCurrentWidget(live_); });
    connect(units_, &UnitsPage::showUnitAllocations, this, [this](int32_t unit, const QString &name) {
        live_->setUnitFilter(unit, name);
        tabs_->setCurrentWidget(live_);
    });
    connect(segmentTimeline_, &SegmentTimelineView::showSegments, this, [this] { tabs_->setCurrentWidget(segments_); });
    connect(state_, &ViewState::selectedAllocationChanged, this, &DocumentView::showAllocation);
    connect(state_, &ViewState::selectedEventChanged, this, [this] { emit statusChanged(statusText()); });
    connect(loader_, &DocumentLoader::progress, this, [this](double fraction, const QString &stage) {
        progressPage_->setProgress(fraction, tr("%1 %2…").arg(stage, shownName()));
    });
    connect(loader_, &DocumentLoader::documentReady, this, &DocumentView::showDocument);
    // The first frame comes from the index alone; the summarised document follows on the page shown.
    connect(loader_, &DocumentLoader::indexedReady, this, [this](std::shared_ptr<const TimelineLayouts> timeline) {
        setDocument({timeline->document, timeline});
        if (currentPageKind() == Page::Timeline) {
            // The page just shown gets its geometry first: the window is painted now, with it.
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            timeline_->drawNow();
        }
    });
    connect(loader_, &DocumentLoader::timelineReady, this, [this](std::shared_ptr<const TimelineLayouts> timeline) {
        if (swapStage(timeline))
            return;
        if (state_->setTimeline(std::move(timeline)))
            enablePages();
    });
    // The advice follows the first frame, before anything (a session, a test) hears the file is loaded.
    connect(loader_, &DocumentLoader::adviceReady, this, &DocumentView::takeAdvice);
    connect(loader_, &DocumentLoader::failed, this, &DocumentView::loadFailed);
    connect(loader_, &DocumentLoader::cancelled, this, &DocumentView::loadCancelled);
    // A refresh swaps both stages in at once, so no page is disabled meanwhile; a failed one
    // leaves the run shown as it was.
    connect(refresher_, &DocumentLoader::adviceReady, this, [this](std::shared_ptr<const TimelineLayouts> timeline) {
        const int page = tabs_->currentIndex();
        showDocument(timeline->document);
        if (state_->setTimeline(std::move(timeline)))
            enablePages();
        tabs_->setCurrentIndex(page);
    });
    connect(refresher_, &DocumentLoader::failed, this, [this](const QString &message) { emit statusChanged(tr("Not refreshed: %1").arg(message)); });
}

} // namespace memlens
