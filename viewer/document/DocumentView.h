#pragma once
// Everything shown for one opened file: loading progress with Cancel, then the device
// selector, the summary and timeline pages and the details of the selected allocation.
#include "state/Page.h"
#include "notes/NoteSet.h"
#include "pipeline/DocumentPipeline.h"

#include <memory>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;

class QStackedWidget;
class QTabWidget;
class QTextBrowser;

namespace memlens {

class CategoryTimelineView;
class NoteEditor;
class NoteListPanel;
class NoteSet;
class DocumentLoader;
class LoadProgressPage;
class SegmentsPage;
class SegmentTimelineView;
class LiveTensorsPage;
class StacksPage;
class StepsView;
class SummaryPage;
class TimelineView;
class LayersPage;
class UnitsPage;
class ViewState;

class DocumentView : public QWidget {
    Q_OBJECT

public:
    explicit DocumentView(QWidget *parent = nullptr);
    ~DocumentView() override;

    void load(const QString &path);
    // Rank `rank`'s dumps in `folder` as one run (its path is then stitchedRunName(), not a file).
    void loadStitched(const QString &folder, int rank);
    // The same again with the dumps that landed since, in the background: the run shown stays
    // until the new one is complete, then takes its place on the page the user is on.
    void refreshStitched(const QString &folder, int rank);
    // Files load through this cache (null: none).
    void setSnapshotCache(std::shared_ptr<const SnapshotCache> cache);
    void cancelLoad();
    // For the headless renderer and tests: adopt an already built document.
    void setDocument(const LoadedDocument &loaded);
    // The load's last stage, the run on screen with its advice: swapped in on the page shown,
    // keeping the device, visible range and selection set since the first frame; then loaded().
    void takeAdvice(std::shared_ptr<const TimelineLayouts> advised);
    // The same run's next stage (its summary, its advice) swapped in likewise; false when
    // `next` is not the run on screen.
    bool swapStage(std::shared_ptr<const TimelineLayouts> next);

    const std::shared_ptr<const Document> &document() const;
    QString path() const { return path_; }
    // The session file this document was opened from or last saved to ("" if none).
    QString sessionPath() const { return sessionPath_; }
    void setSessionPath(const QString &path) { sessionPath_ = path; }
    ViewState *state() const { return state_; }
    SummaryPage *summaryPage() const { return summary_; }
    TimelineView *timeline() const { return timeline_; }
    StepsView *steps() const { return steps_; }
    SegmentsPage *segments() const { return segments_; }
    SegmentTimelineView *segmentTimeline() const { return segmentTimeline_; }
    StacksPage *stacks() const { return stacks_; }
    LiveTensorsPage *live() const { return live_; }
    UnitsPage *units() const { return units_; }
    LayersPage *layers() const { return layers_; }
    CategoryTimelineView *categories() const { return categories_; }
    // A page that waits for the timeline's index is shown once the index is there.
    void showPage(Page page);
    // Whether this file has the page (Steps without steps, By unit without units: it does not);
    // every page while nothing is loaded yet.
    bool hasPage(Page page) const;
    QWidget *pageWidget(Page page) const;
    QWidget *currentPage() const;
    Page currentPageKind() const;
    // The footer of an exported picture of the current page.
    // The name the tab goes by ("rank0/snapshot.pickle"), which exported images carry too.
    void setDisplayName(const QString &name) { displayName_ = name; }
    const QString &displayName() const { return displayName_; }
    QString shownName() const; // the display name, else the file's name
    struct ExportFooter exportFooter(const QString &version) const;
    void setDetailsVisible(bool visible);
    NoteSet *notes() const { return notes_; }
    // One-click notes with the key figures, pinned to the peak / the selected (or first) OOM
    // (on the segments page: to the largest hole at that OOM).
    void addPeakNote();
    bool addOomNote();
    void addNoteAtCursor(const QString &text);
    // The editor of a view's notes.
    NoteEditor *noteEditor(NoteView view) const;
    // Draw a note, arrow or box with the next click or drag ("" cancels). Shows the timeline if
    // the current page takes no notes.
    void setNoteTool(std::optional<NoteKind> kind);
    // Shows the view and moment a note belongs to and selects it.
    void jumpToNote(int index);
    bool editNote(int index);
    QString statusText() const;

signals:
    void loaded();
    void loadFailed(const QString &message);
    void loadCancelled();
    void statusChanged(const QString &text);
    // The estimator, prefilled from the current device's inferred setup, with fix `fix` applied (-1: none).
    void estimatorRequested(int fix);

private:
    QWidget *buildContent();
    void connectPages();
    // A document delivered alone: what needs no timeline shows, its pages wait for it.
    void showDocument(std::shared_ptr<const Document> doc);
    // The document's pages; with `timelineFollows` its own timeline is set next, in the same call.
    void showStage(std::shared_ptr<const Document> doc, bool timelineFollows);
    void enablePages(); // stage 2 arrived
    void showAllocation(AllocationId allocation);
    void fillDevices();

    QString path_;
    QString sessionPath_;
    ViewState *state_;
    DocumentLoader *loader_;
    DocumentLoader *refresher_;
    QStackedWidget *stack_;
    LoadProgressPage *progressPage_;
    QString displayName_;
    bool cppFrames_ = false; // the snapshot has C++ frames
    QWidget *deviceRow_;
    QComboBox *device_;
    QTabWidget *tabs_;
    std::optional<Page> pendingPage_; // asked for while it waited; a tab clicked meanwhile wins
    SummaryPage *summary_;
    TimelineView *timeline_;
    StepsView *steps_;
    SegmentsPage *segments_;
    SegmentTimelineView *segmentTimeline_;
    StacksPage *stacks_;
    LiveTensorsPage *live_;
    UnitsPage *units_;
    LayersPage *layers_;
    CategoryTimelineView *categories_;
    QTextBrowser *details_;
    NoteSet *notes_;
    NoteListPanel *noteList_;
    NoteEditor *timelineEditor_;
    NoteEditor *segmentsEditor_;
    NoteEditor *flameEditor_;
};

} // namespace memlens
