#include "document/DocumentView.h"

#include "analysis/FrameFilter.h"
#include "annotations/AnnotationEditor.h"
#include "annotations/AnnotationListPanel.h"
#include "annotations/AnnotationSet.h"
#include "document/DocumentLoader.h"
#include "document/ViewState.h"
#include "export/ViewExport.h"
#include "model/ByteFormat.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentsPage.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "style/AllocationText.h"
#include "summary/LiveTensorsPage.h"
#include "summary/SummaryPage.h"
#include "timeline/AllocationBandsPlottable.h"
#include "timeline/CategoryTimelineView.h"
#include "timeline/TimelineView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <qcustomplot.h>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace memlens {

namespace {
Annotation timelineNote(const QString &text, double event, double bytes)
{
    Annotation a;
    a.text = text;
    a.x = event;
    a.y = bytes;
    return a;
}
} // namespace

DocumentView::DocumentView(QWidget *parent)
    : QWidget(parent), state_(new ViewState(this)), loader_(new DocumentLoader(this)), annotations_(new AnnotationSet(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    stack_ = new QStackedWidget(this);
    outer->addWidget(stack_);

    progressPage_ = new QWidget(stack_);
    auto *pl = new QVBoxLayout(progressPage_);
    pl->addStretch();
    progressLabel_ = new QLabel(progressPage_);
    progressLabel_->setAlignment(Qt::AlignCenter);
    progress_ = new QProgressBar(progressPage_);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(480);
    auto *cancel = new QPushButton(tr("Cancel"), progressPage_);
    cancel->setShortcut(Qt::Key_Escape);
    connect(cancel, &QPushButton::clicked, this, &DocumentView::cancelLoad);
    pl->addWidget(progressLabel_);
    auto *row = new QHBoxLayout;
    row->addStretch();
    row->addWidget(progress_, 1);
    row->addWidget(cancel);
    row->addStretch();
    pl->addLayout(row);
    pl->addStretch();
    stack_->addWidget(progressPage_);

    auto *content = new QWidget(stack_);
    auto *cl = new QVBoxLayout(content);
    cl->setContentsMargins(4, 4, 4, 4);
    deviceRow_ = new QWidget(content);
    auto *top = new QHBoxLayout(deviceRow_);
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(new QLabel(tr("Device:"), deviceRow_));
    device_ = new QComboBox(deviceRow_);
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
    tabs_->addTab(segments_, tr("Segments"));
    stacks_ = new StacksPage(state_, tabs_);
    tabs_->addTab(stacks_, tr("Stacks"));
    live_ = new LiveTensorsPage(state_, tabs_);
    tabs_->addTab(live_, tr("Live"));
    categories_ = new CategoryTimelineView(tabs_);
    tabs_->addTab(categories_, tr("Categories"));
    auto *side = new QSplitter(Qt::Vertical, split);
    details_ = new QTextBrowser(side);
    details_->setPlaceholderText(tr("Select an allocation to see its size, lifetime and full stack."));
    details_->setMinimumWidth(260);
    annotationList_ = new AnnotationListPanel(annotations_, side);
    side->addWidget(details_);
    side->addWidget(annotationList_);
    side->setStretchFactor(0, 3);
    side->setStretchFactor(1, 1);
    split->addWidget(tabs_);
    split->addWidget(side);
    timeline_->setAnnotations(annotations_);
    segments_->map()->setAnnotations(annotations_);
    stacks_->flameGraph()->setAnnotations(annotations_);
    timelineEditor_ = new AnnotationEditor(timeline_->plot(), timeline_->bands(), annotations_, state_);
    segmentsEditor_ = new AnnotationEditor(segments_->map(), segments_->map(), annotations_, state_);
    flameEditor_ = new AnnotationEditor(stacks_->flameGraph(), stacks_->flameGraph(), annotations_, state_);
    for (AnnotationEditor *editor : {timelineEditor_, segmentsEditor_, flameEditor_})
        connect(editor, &AnnotationEditor::toolFinished, this, [this] { setAnnotationTool({}); });
    connect(annotationList_, &AnnotationListPanel::jumpRequested, this, &DocumentView::jumpToAnnotation);
    connect(annotationList_, &AnnotationListPanel::editRequested, this, &DocumentView::editAnnotation);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    cl->addWidget(split, 1);
    stack_->addWidget(content);

    connect(device_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            state_->setDevice(device_->itemData(i).toInt());
    });
    connect(summary_, &SummaryPage::showOnTimeline, this, [this](uint32_t event, uint32_t allocation) {
        tabs_->setCurrentWidget(timeline_);
        timeline_->revealEvent(event);
        if (allocation != UINT32_MAX)
            state_->setSelectedAllocation(allocation);
        timeline_->setFocus();
    });
    connect(summary_, &SummaryPage::showSegments, this, [this](uint32_t event) {
        state_->setSelectedEvent(event);
        tabs_->setCurrentWidget(segments_);
    });
    connect(segments_, &SegmentsPage::showLiveTensors, this, [this] { tabs_->setCurrentWidget(live_); });
    connect(state_, &ViewState::selectedAllocationChanged, this, &DocumentView::showAllocation);
    connect(state_, &ViewState::selectedEventChanged, this, [this] { emit statusChanged(statusText()); });
    connect(loader_, &DocumentLoader::progress, this, [this](double fraction, const QString &stage) {
        progress_->setValue(static_cast<int>(fraction * 1000));
        progressLabel_->setText(tr("%1 %2…").arg(stage, path_));
    });
    connect(loader_, &DocumentLoader::indexed, this, &DocumentView::setIndexedDocument);
    connect(loader_, &DocumentLoader::loaded, this, [this](std::shared_ptr<Document> doc) {
        setDocument(std::move(doc));
        emit loaded();
    });
    connect(loader_, &DocumentLoader::failed, this, &DocumentView::loadFailed);
    connect(loader_, &DocumentLoader::cancelled, this, &DocumentView::loadCancelled);
}

DocumentView::~DocumentView() = default;

void DocumentView::load(const QString &path)
{
    path_ = path;
    progress_->setValue(0);
    progressLabel_->setText(tr("Opening %1…").arg(path));
    stack_->setCurrentWidget(progressPage_);
    loader_->load(path);
}

void DocumentView::cancelLoad()
{
    loader_->cancel();
}

void DocumentView::fillDevices()
{
    // C++ frames mean the run recorded stacks="all"; looked up once, not per status update.
    cppFrames_ = false;
    for (size_t id = 0; id < doc_->snapshot->frames.size() && !cppFrames_; ++id) {
        const std::string_view file = doc_->snapshot->strings.at(doc_->snapshot->frames.at(static_cast<uint32_t>(id)).file);
        cppFrames_ = file.ends_with(".cpp") || file.ends_with(".h") || file == "??";
    }
    const QSignalBlocker blocker(device_);
    device_->clear();
    for (const auto &[d, data] : doc_->devices)
        device_->addItem(QString::fromStdString(doc_->snapshot->deviceName(d)), d);
    device_->setEnabled(device_->count() > 1);
    deviceRow_->setVisible(device_->count() > 0);
    if (!doc_->devices.empty())
        state_->setDevice(doc_->devices.begin()->first);
}

void DocumentView::setIndexedDocument(std::shared_ptr<const Document> doc)
{
    doc_ = std::move(doc);
    path_ = doc_->path;
    fillDevices();
    summary_->setDocument(doc_);
    tabs_->setTabVisible(tabs_->indexOf(categories_), false);
    tabs_->setTabEnabled(tabs_->indexOf(timeline_), false);
    tabs_->setTabEnabled(tabs_->indexOf(segments_), false);
    tabs_->setTabEnabled(tabs_->indexOf(stacks_), false);
    tabs_->setTabEnabled(tabs_->indexOf(live_), false);
    tabs_->setTabToolTip(tabs_->indexOf(timeline_), tr("Preparing the timeline…"));
    stack_->setCurrentIndex(1);
    emit statusChanged(tr("%1 · preparing the timeline…").arg(doc_->fileName()));
}

void DocumentView::setDocument(std::shared_ptr<const Document> doc)
{
    const bool staged = doc_ == doc;
    doc_ = std::move(doc);
    path_ = doc_->path;
    if (!staged)
        fillDevices();
    tabs_->setTabEnabled(tabs_->indexOf(timeline_), true);
    tabs_->setTabEnabled(tabs_->indexOf(segments_), true);
    tabs_->setTabEnabled(tabs_->indexOf(stacks_), true);
    tabs_->setTabEnabled(tabs_->indexOf(live_), true);
    tabs_->setTabToolTip(tabs_->indexOf(timeline_), QString());
    summary_->setDocument(doc_);
    timeline_->setDocument(doc_);
    segments_->setDocument(doc_);
    stacks_->setDocument(doc_);
    live_->setDocument(doc_);
    categories_->setDocument(doc_);
    // Each kind of file shows the pages that have something to show.
    const bool perAllocation = !doc_->devices.empty();
    const bool hasSegments = !doc_->snapshot->segments.empty() || doc_->snapshot->facts.format != "chrome-trace";
    tabs_->setTabVisible(tabs_->indexOf(summary_), perAllocation);
    tabs_->setTabVisible(tabs_->indexOf(timeline_), perAllocation);
    tabs_->setTabVisible(tabs_->indexOf(segments_), perAllocation && hasSegments);
    tabs_->setTabVisible(tabs_->indexOf(stacks_), perAllocation);
    tabs_->setTabVisible(tabs_->indexOf(live_), perAllocation);
    tabs_->setTabVisible(tabs_->indexOf(categories_), doc_->snapshot->categories.has_value());
    if (!perAllocation && doc_->snapshot->categories)
        tabs_->setCurrentWidget(categories_);
    stack_->setCurrentIndex(1);
    emit statusChanged(statusText());
}

void DocumentView::showPage(Page page)
{
    QWidget *pages[] = {summary_, timeline_, segments_, stacks_, live_, categories_};
    tabs_->setCurrentWidget(pages[static_cast<int>(page)]);
}

QWidget *DocumentView::currentPage() const
{
    return tabs_->currentWidget();
}

DocumentView::Page DocumentView::currentPageKind() const
{
    const QWidget *pages[] = {summary_, timeline_, segments_, stacks_, live_, categories_};
    for (int p = 0; p < 6; ++p) {
        if (tabs_->currentWidget() == pages[p])
            return static_cast<Page>(p);
    }
    return Page::Summary;
}

ExportFooter DocumentView::exportFooter(const QString &version) const
{
    ExportFooter footer;
    footer.version = version;
    if (!doc_)
        return footer;
    footer.file = doc_->fileName();
    const DeviceData *d = doc_->device(state_->device());
    if (!d)
        return footer;
    footer.device = QString::fromStdString(doc_->snapshot->deviceName(state_->device()));
    const uint32_t e = state_->selectedEvent();
    footer.moment = e != kBeforeTrace ? eventLabel(*d->index, e)
                    : d->summary.peakIndex ? tr("peak at %1").arg(eventLabel(*d->index, *d->summary.peakIndex))
                                           : QString();
    return footer;
}

void DocumentView::setDetailsVisible(bool visible)
{
    details_->parentWidget()->setVisible(visible);
}

AnnotationEditor *DocumentView::annotationEditor(const QString &view) const
{
    return view == "timeline" ? timelineEditor_ : view == "segments" ? segmentsEditor_ : view == "flamegraph" ? flameEditor_ : nullptr;
}

void DocumentView::setAnnotationTool(const QString &kind)
{
    const Page page = currentPageKind();
    if (!kind.isEmpty() && page != Page::Timeline && page != Page::Segments && page != Page::Stacks)
        showPage(Page::Timeline);
    for (AnnotationEditor *editor : {timelineEditor_, segmentsEditor_, flameEditor_}) {
        if (editor->tool() != kind)
            editor->setTool(kind);
    }
    if (!kind.isEmpty())
        emit statusChanged(tr("Click or drag on the timeline, segment map or flame graph to draw a %1 (Esc cancels)").arg(kind));
    else
        emit statusChanged(statusText());
}

void DocumentView::jumpToAnnotation(int index)
{
    if (index < 0 || index >= annotations_->items().size())
        return;
    const Annotation a = annotations_->items()[index];
    annotations_->setSelected(index);
    if (a.view == "timeline") {
        showPage(Page::Timeline);
        timeline_->revealEvent(static_cast<uint32_t>(std::max(0.0, a.x)));
        return;
    }
    if (a.event >= 0)
        state_->setSelectedEvent(static_cast<uint32_t>(a.event));
    if (a.view == "segments") {
        showPage(Page::Segments);
        if (const auto at = segments_->map()->headPixel(a))
            segments_->revealMapPoint(*at);
    } else {
        showPage(Page::Stacks);
    }
}

bool DocumentView::editAnnotation(int index)
{
    if (index < 0 || index >= annotations_->items().size())
        return false;
    AnnotationEditor *editor = annotationEditor(annotations_->items()[index].view);
    return editor && editor->editText(index);
}

void DocumentView::annotatePeak()
{
    const DeviceData *d = doc_ ? doc_->device(state_->device()) : nullptr;
    if (!d || !d->summary.peakIndex)
        return;
    const DeviceSummary &s = d->summary;
    QString text = tr("Peak %1 at event %2").arg(QString::fromStdString(formatBytes(s.peakActiveBytes))).arg(*s.peakIndex);
    for (size_t i = 0; i < s.topLiveAtPeak.size() && i < 3; ++i) {
        const auto frames = stackFrames(*doc_->snapshot, s.topLiveAtPeak[i].stack, true);
        text += QStringLiteral("\n%1 %2").arg(QString::fromStdString(formatBytes(s.topLiveAtPeak[i].size)),
                                              frames.empty() ? tr("(no stack)") : QString::fromStdString(doc_->snapshot->frameText(frames.front())));
    }
    annotations_->add(timelineNote(text, double(*s.peakIndex), double(s.peakActiveBytes)));
}

bool DocumentView::annotateOom()
{
    const DeviceData *d = doc_ ? doc_->device(state_->device()) : nullptr;
    if (!d || d->summary.ooms.empty())
        return false;
    const OomInfo *chosen = &d->summary.ooms.front();
    for (const OomInfo &o : d->summary.ooms) {
        if (o.index == state_->selectedEvent())
            chosen = &o;
    }
    const QString text = tr("OOM: %1 requested; %2 free in reserved, largest block %3 → %4")
                             .arg(QString::fromStdString(formatBytes(chosen->size)), QString::fromStdString(formatBytes(chosen->reservedFree)),
                                  QString::fromStdString(formatBytes(chosen->largestFreeBlock)),
                                  chosen->fragmentation ? tr("fragmentation") : tr("capacity"));
    if (currentPageKind() != Page::Segments) {
        annotations_->add(timelineNote(text, double(chosen->index), double(d->index->activeAfter(chosen->index))));
        return true;
    }
    // On the segment map the note goes on the largest hole of the pool the request needed.
    state_->setSelectedEvent(chosen->index);
    const AllocatorState &st = segments_->map()->state();
    Annotation a;
    a.view = "segments";
    a.text = text;
    a.event = chosen->index;
    if (chosen->largestFreeBlock > 0) {
        a.x = static_cast<double>(chosen->largestFreeAddress);
        a.text += tr("\nthe largest hole, %1, is here").arg(QString::fromStdString(formatBytes(chosen->largestFreeBlock)));
    } else if (!st.segments.empty()) {
        a.x = static_cast<double>(st.segments.front().addr);
    } else {
        return false;
    }
    annotations_->add(a);
    if (const auto at = segments_->map()->headPixel(a))
        segments_->revealMapPoint(*at);
    return true;
}

void DocumentView::addNoteAtCursor(const QString &text)
{
    const DeviceData *d = doc_ ? doc_->device(state_->device()) : nullptr;
    if (!d || d->index->eventCount() == 0)
        return;
    uint32_t e = state_->selectedEvent();
    if (e == kBeforeTrace)
        e = d->summary.peakIndex.value_or(0);
    annotations_->add(timelineNote(text, double(e), double(d->index->activeAfter(e))));
}

void DocumentView::showAllocation(uint32_t allocation)
{
    const DeviceData *d = doc_ ? doc_->device(state_->device()) : nullptr;
    if (!d || allocation == UINT32_MAX || allocation >= d->index->allocationCount()) {
        details_->clear();
        return;
    }
    details_->setHtml(allocationDetailsHtml(*doc_, *d->index, allocation, false));
}

QString DocumentView::statusText() const
{
    const DeviceData *d = doc_ ? doc_->device(state_->device()) : nullptr;
    if (!d)
        return {};
    const FileFacts &f = doc_->snapshot->facts;
    QString text = tr("%1 · %2%3 · %4 events").arg(doc_->fileName(), QString::fromStdString(f.format),
                                                   f.compression == "none" ? QString() : "+" + QString::fromStdString(f.compression))
                       .arg(d->index->eventCount());
    QStringList features;
    if (f.hasFrames)
        features << (cppFrames_ ? tr("Python and C++ stacks") : tr("Python stacks"));
    if (f.hasAnnotations)
        features << tr("phases");
    if (f.hasCompileContext)
        features << tr("compile context");
    if (!features.isEmpty())
        text += " · " + features.join(", ");
    if (state_->selectedEvent() != kBeforeTrace)
        text += tr(" · cursor at %1").arg(eventLabel(*d->index, state_->selectedEvent()));
    return text;
}

} // namespace memlens
