#pragma once
// Everything shown for one opened file: loading progress with Cancel, then the device
// selector, the summary and timeline pages and the details of the selected allocation.
#include "Document.h"

#include <QWidget>
#include <memory>

class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QTextBrowser;

namespace memlens {

class CategoryTimelineView;
class AnnotationSet;
class DocumentLoader;
class SegmentsPage;
class LiveTensorsPage;
class StacksPage;
class SummaryPage;
class TimelineView;
class ViewState;

class DocumentView : public QWidget {
    Q_OBJECT

public:
    enum class Page { Summary, Timeline, Segments, Stacks, Live, Categories };

    explicit DocumentView(QWidget *parent = nullptr);
    ~DocumentView() override;

    void load(const QString &path);
    void cancelLoad();
    // For the headless renderer and tests: adopt an already built document.
    void setDocument(std::shared_ptr<const Document> doc);
    // Shows what needs only the indices (summary, segments) while the timeline is prepared.
    void setIndexedDocument(std::shared_ptr<const Document> doc);

    std::shared_ptr<const Document> document() const { return doc_; }
    QString path() const { return path_; }
    ViewState *state() const { return state_; }
    SummaryPage *summaryPage() const { return summary_; }
    TimelineView *timeline() const { return timeline_; }
    SegmentsPage *segments() const { return segments_; }
    StacksPage *stacks() const { return stacks_; }
    LiveTensorsPage *live() const { return live_; }
    CategoryTimelineView *categories() const { return categories_; }
    void showPage(Page page);
    QWidget *currentPage() const;
    Page currentPageKind() const;
    // The footer of an exported picture of the current page.
    struct ExportFooter exportFooter(const QString &version) const;
    void setDetailsVisible(bool visible);
    AnnotationSet *annotations() const { return annotations_; }
    // One-click notes with the key figures, pinned to the peak / the selected (or first) OOM.
    void annotatePeak();
    bool annotateOom();
    void addNoteAtCursor(const QString &text);
    QString statusText() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

signals:
    void loaded();
    void loadFailed(const QString &message);
    void loadCancelled();
    void statusChanged(const QString &text);

private:
    void showAllocation(uint32_t allocation);
    void fillDevices();
    void refreshAnnotationList();

    QString path_;
    std::shared_ptr<const Document> doc_;
    ViewState *state_;
    DocumentLoader *loader_;
    QStackedWidget *stack_;
    QWidget *progressPage_;
    QLabel *progressLabel_;
    QProgressBar *progress_;
    bool cppFrames_ = false; // the snapshot has C++ frames
    QWidget *deviceRow_;
    QComboBox *device_;
    QTabWidget *tabs_;
    SummaryPage *summary_;
    TimelineView *timeline_;
    SegmentsPage *segments_;
    StacksPage *stacks_;
    LiveTensorsPage *live_;
    CategoryTimelineView *categories_;
    QTextBrowser *details_;
    AnnotationSet *annotations_;
    QListWidget *annotationList_;
};

} // namespace memlens
