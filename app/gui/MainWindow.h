#pragma once
// The application window: a start page, one tab per opened document, menus, recent files,
// drag and drop. Documents load in the background; a failed load leaves the others untouched.
#include "state/Page.h"

#include <QMainWindow>
#include <QPointer>
#include <memory>
#include <utility>
#include <vector>

class QStackedWidget;
class QTabWidget;
class QMenu;

class QUndoGroup;

namespace memlens {

class DocumentView;
class RankOverviewPage;
class EstimatorPanel;
class SnapshotCache;
class StartPage;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    // Files opened from now on load through `cache` (null: none; tests use none).
    void setSnapshotCache(std::shared_ptr<const SnapshotCache> cache) { cache_ = std::move(cache); }

    // Opens a snapshot (or a .memlens session, then returns nullptr).
    // A folder opens its rank overview (and returns null).
    DocumentView *openFile(const QString &path);
    // Rank `rank`'s dumps in `folder` as one run, in a tab of its own (shown if already open).
    DocumentView *openStitchedRank(const QString &folder, int rank);
    // The folder's rank overview in a new tab; null (with a message) when it holds no snapshot.
    // `watch`: follow it for new dumps (it may be empty yet).
    RankOverviewPage *openFolder(const QString &path, bool watch = false);
    void openSession(const QString &path);
    void openExample();
    QTabWidget *tabs() const { return tabs_; }
    DocumentView *currentDocument() const;

    // The F1 sheet: every menu shortcut, then the keys the pages take.
    QString shortcutsSheet() const;
    EstimatorPanel *estimator() const; // the estimator's window while it is open

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    // A tab for a document about to load: its title, its path as the tooltip, the usual wiring.
    DocumentView *addDocumentTab(const QString &path, const QString &title);
    // The tab of the document view showing `path` (a file, or a stitched run's name), or -1.
    int documentTabOf(const QString &path) const;
    void createMenus();
    void createFileMenu();
    void createViewMenu();
    // View's page items: enabled for the pages the current tab's file has (none on a ranks tab,
    // where they did nothing).
    void updatePageActions();
    std::vector<std::pair<QAction *, Page>> pageActions_;
    void createNotesMenu();
    void createToolsAndHelpMenus();
    void closeTab(int index);
    void removeView(DocumentView *view);
    void addRecent(const QString &path);
    void updateRecent();
    void updateCentral();
    void chooseFile();
    void showShortcuts();
    QString tabTitleFor(const QString &path) const; // the file's name, told apart from open tabs'
    // A document's name on its tab (with the dot of unsaved notes), in the title and its exports.
    void renameTab(DocumentView *view, const QString &name);
    // Prefilled from the current document's inferred setup, with that advice's fix `fix` applied (-1: none).
    void openEstimator(int fix = -1);
    void exportView(qreal scale, bool svg);
    // Saves `view`'s session to its session file, or asks where (always, with `askPath`).
    bool saveSession(DocumentView *view, bool askPath);
    // Asks to save notes made since the last save; false: the user cancelled.
    bool maySaveBeforeClosing(DocumentView *view);

    QPointer<EstimatorPanel> estimator_;
    QStackedWidget *central_;
    StartPage *start_;
    QTabWidget *tabs_;
    QMenu *recentMenu_;
    QUndoGroup *undo_; // one note undo stack per document; the current tab's is active
    std::shared_ptr<const SnapshotCache> cache_;
};

} // namespace memlens
