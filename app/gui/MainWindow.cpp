#include "gui/MainWindow.h"

#include "state/Page.h"
#include "state/ScreenFit.h"
#include "gui/ExampleSnapshot.h"
#include "gui/HelpDialog.h"
#include "decode/input/FileChecksum.h"
#include "document/DocumentView.h"
#include "document/SessionBinding.h"
#include "document/StartPage.h"
#include "state/ViewState.h"
#include "estimator/EstimatorPanel.h"
#include "export/ViewExport.h"
#include "notes/NoteEditor.h"
#include "notes/NoteSet.h"
#include "report/SummaryMarkdown.h"
#include "segments/SegmentsPage.h"
#include "compare/CompareDialog.h"
#include "ranks/RankOverviewPage.h"
#include "pipeline/RankStitch.h"
#include "timeline/TimelineView.h"

#include <QAction>
#include <QClipboard>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenuBar>
#include <QComboBox>
#include <QMessageBox>
#include <QShortcut>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoGroup>
#include <QUndoStack>

namespace memlens {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), undo_(new QUndoGroup(this))
{
    setWindowTitle(tr("memlens"));
    setAcceptDrops(true);
    fitOnScreen(this, QSize(1280, 800));
    central_ = new QStackedWidget(this);
    start_ = new StartPage(central_);
    tabs_ = new QTabWidget(central_);
    tabs_->setTabsClosable(true);
    tabs_->setMovable(true);
    tabs_->setDocumentMode(true);
    central_->addWidget(start_);
    central_->addWidget(tabs_);
    setCentralWidget(central_);
    connect(tabs_, &QTabWidget::tabCloseRequested, this, &MainWindow::closeTab);
    connect(tabs_, &QTabWidget::currentChanged, this, [this] {
        DocumentView *view = currentDocument();
        undo_->setActiveStack(view ? view->notes()->undoStack() : nullptr);
        statusBar()->showMessage(view ? view->statusText() : QString());
        // The tab's own name: a document's path is not known until it has loaded.
        const QString name = tabs_->currentIndex() >= 0 ? tabs_->tabText(tabs_->currentIndex()).remove(QStringLiteral(" •")) : QString();
        setWindowTitle(name.isEmpty() ? tr("memlens") : tr("%1 — memlens").arg(name));
        updatePageActions();
    });
    connect(start_, &StartPage::openRequested, this, &MainWindow::chooseFile);
    connect(start_, &StartPage::exampleRequested, this, &MainWindow::openExample);
    connect(start_, &StartPage::recentRequested, this, [this](const QString &path) { openFile(path); });
    createMenus();
    updateRecent();
    updateCentral();
    statusBar()->showMessage(tr("Ready"));
}

bool MainWindow::saveSession(DocumentView *d, bool askPath)
{
    if (!d || !d->document())
        return false;
    if (!QFileInfo(d->path()).isFile()) {
        // A session names one snapshot file and its checksum; a stitched run has neither.
        auto *box = new QMessageBox(QMessageBox::Information, tr("Save session"),
                                    tr("A stitched run is made of several dumps, not one file, so it cannot be saved as a session yet."),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName("sessionNotSaved");
        box->open();
        return false;
    }
    QString path = d->sessionPath();
    if (askPath || path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save session"),
                                            path.isEmpty() ? QFileInfo(d->path()).completeBaseName() + ".memlens" : path,
                                            tr("memlens sessions (*.memlens)"));
    if (path.isEmpty())
        return false;
    try {
        memlens::saveSession(path.toStdString(), captureSession(*d), false);
    } catch (const std::exception &e) {
        QMessageBox::warning(this, tr("Save session"), QString::fromUtf8(e.what()));
        return false;
    }
    d->setSessionPath(path);
    d->notes()->undoStack()->setClean();
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

bool MainWindow::maySaveBeforeClosing(DocumentView *view)
{
    if (!view->document() || view->notes()->undoStack()->isClean())
        return true;
    tabs_->setCurrentWidget(view);
    const auto answer = QMessageBox::question(this, tr("Unsaved notes"),
                                              tr("Save the notes on %1 in a session before closing?").arg(QFileInfo(view->path()).fileName()),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    return answer == QMessageBox::Discard || (answer == QMessageBox::Save && saveSession(view, false));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    for (int i = 0; i < tabs_->count(); ++i) {
        auto *view = qobject_cast<DocumentView *>(tabs_->widget(i));
        if (view && !maySaveBeforeClosing(view)) {
            event->ignore();
            return;
        }
    }
    event->accept();
}

void MainWindow::openSession(const QString &path)
{
    Session session;
    try {
        session = loadSession(path.toStdString());
    } catch (const std::exception &e) {
        QMessageBox::warning(this, tr("Open session"), QString::fromUtf8(e.what()));
        return;
    }
    QString snapshot = QString::fromStdString(session.snapshotPath);
    if (!QFileInfo::exists(snapshot)) {
        // The snapshot moved: ask where it is now.
        snapshot = QFileDialog::getOpenFileName(this, tr("Where is %1 now?").arg(QFileInfo(snapshot).fileName()));
        if (snapshot.isEmpty())
            return;
    } else if (!session.snapshotChecksum.empty() && snapshotChecksum(snapshot.toStdString()) != session.snapshotChecksum) {
        statusBar()->showMessage(tr("%1 has changed since the session was saved").arg(snapshot), 8000);
    }
    DocumentView *view = openFile(snapshot);
    // The session's page is shown from the first frame; the rest of it (range, cursor, notes)
    // once the run is loaded whole.
    if (const std::optional<Page> page = pageFromName(session.page))
        view->showPage(*page);
    connect(view, &DocumentView::loaded, this, [view, session, path] {
        applySession(*view, session);
        view->setSessionPath(path);
        // After the page has been laid out at its real size.
        QTimer::singleShot(0, view, [view] { view->segments()->revealNotes(); });
    });
}

void MainWindow::exportView(qreal scale, bool svg)
{
    DocumentView *d = currentDocument();
    if (!d || !d->document())
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), QFileInfo(d->path()).completeBaseName() + (svg ? ".svg" : ".png"),
                                                      svg ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
    if (path.isEmpty())
        return;
    const ExportFooter footer = d->exportFooter(QCoreApplication::applicationVersion());
    const QString error = svg ? exportSvg(d->currentPage(), footer, path) : savePng(exportImage(d->currentPage(), footer, scale), path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Export"), error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

void MainWindow::openEstimator(int fix)
{
    // One estimator window, raised and refilled. Its own window, but owned by this one: a window
    // with a parent does not keep the application alive, so Quit (closing this one) ends it.
    EstimatorPanel *panel = estimator_;
    if (!panel) {
        panel = new EstimatorPanel(this);
        panel->setWindowFlag(Qt::Window);
        panel->setAttribute(Qt::WA_DeleteOnClose);
        panel->setWindowTitle(tr("Memory estimator — memlens"));
        // Over this window, not at the screen's corner, and on the screen; Esc closes it, as a
        // dialog would.
        fitOnScreen(panel, QSize(1100, 620), this);
        auto *close = new QShortcut(QKeySequence(Qt::Key_Escape), panel);
        connect(close, &QShortcut::activated, panel, &QWidget::close);
        estimator_ = panel;
    }
    if (DocumentView *view = currentDocument(); view && view->state()->deviceData()) {
        const DeviceData &d = *view->state()->deviceData();
        panel->setMeasurement(d, QString::fromStdString(view->document()->fileName()));
        panel->setInferred(d.advice.setup);
        if (fix >= 0 && size_t(fix) < d.advice.fixes.size())
            panel->showFix(d.advice.fixes[size_t(fix)]);
        // The run's own device, when the file shows its capacity, is the GPU to fit.
        if (const int own = panel->gpuBox()->findData(QStringLiteral("run"), Qt::UserRole + 1); own >= 0)
            panel->gpuBox()->setCurrentIndex(own);
    }
    panel->show();
    panel->raise();
    panel->activateWindow();
}

EstimatorPanel *MainWindow::estimator() const
{
    return estimator_;
}

QString MainWindow::shortcutsSheet() const
{
    return shortcutsTable(menuBar());
}

void MainWindow::showShortcuts()
{
    showHelpDialog(this, "shortcuts", tr("Keyboard shortcuts"), shortcutsSheet(), HelpFormat::Html);
}

DocumentView *MainWindow::currentDocument() const
{
    return qobject_cast<DocumentView *>(tabs_->currentWidget());
}

void MainWindow::chooseFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open memory snapshot"), QString(),
                                                      tr("Memory snapshots (*.pickle *.pkl *.pickle.zst *.pickle.gz *.json *.json.gz *.zst *.gz);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::openExample()
{
    const QString path = exampleSnapshotPath();
    if (path.isEmpty())
        QMessageBox::warning(this, tr("memlens"), tr("The bundled example could not be unpacked."));
    else
        openFile(path);
}

RankOverviewPage *MainWindow::openFolder(const QString &path, bool watch)
{
    auto *page = new RankOverviewPage(cache_, tabs_);
    try {
        page->openFolder(path, watch);
        if (watch)
            page->watch();
    } catch (const std::exception &e) {
        delete page; // nothing else changes
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot open folder"), QString::fromStdString(e.what()), QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return nullptr;
    }
    connect(page, &RankOverviewPage::openStitchedRankRequested, this, &MainWindow::openStitchedRank);
    connect(page, &RankOverviewPage::dumpsLanded, this, [this](const QString &folder, const std::vector<int> &ranks) {
        // Stitched runs of these ranks take the new dumps; the tab the user is on stays current.
        for (int rank : ranks) {
            if (const int i = documentTabOf(QString::fromStdString(stitchedRunName(folder.toStdString(), rank))); i >= 0)
                qobject_cast<DocumentView *>(tabs_->widget(i))->refreshStitched(folder, rank);
        }
    });
    connect(page, &RankOverviewPage::openRankRequested, this, [this](const QString &file) {
        // A rank already open is shown, not opened again.
        if (const int i = documentTabOf(file); i >= 0)
            tabs_->setCurrentIndex(i);
        else
            openFile(file);
    });
    connect(page, &RankOverviewPage::compareRanksRequested, this, [this](const QString &a, int da, const QString &b, int db) {
        auto *dialog = new CompareDialog(nullptr, da, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        dialog->compareFiles(a, da, b, db);
    });
    const int index = tabs_->addTab(page, tr("%1 (ranks)").arg(QFileInfo(path).fileName()));
    tabs_->setTabToolTip(index, path);
    tabs_->setCurrentIndex(index);
    updateCentral();
    return page;
}

DocumentView *MainWindow::openFile(const QString &path)
{
    if (QFileInfo(path).isDir()) {
        openFolder(path);
        return nullptr;
    }
    if (path.endsWith(".memlens")) {
        openSession(path);
        return nullptr;
    }
    DocumentView *view = addDocumentTab(path, tabTitleFor(path));
    connect(view, &DocumentView::loaded, this, [this, path] {
        addRecent(path);
        updatePageActions();
    });
    view->load(path);
    return view;
}

DocumentView *MainWindow::openStitchedRank(const QString &folder, int rank)
{
    const QString name = QString::fromStdString(stitchedRunName(folder.toStdString(), rank));
    if (const int i = documentTabOf(name); i >= 0) {
        tabs_->setCurrentIndex(i);
        return qobject_cast<DocumentView *>(tabs_->widget(i));
    }
    DocumentView *view = addDocumentTab(name, tr("%1 · rank %2 (stitched)").arg(QDir(folder).dirName()).arg(rank));
    view->loadStitched(folder, rank);
    return view;
}

QString MainWindow::tabTitleFor(const QString &path) const
{
    // The file's name, with its folder's when an open tab already goes by that name
    // (three runs' snapshot.pickle).
    const QFileInfo file(path);
    for (int i = 0; i < tabs_->count(); ++i) {
        if (QFileInfo(tabs_->tabToolTip(i)).fileName() == file.fileName() && tabs_->tabToolTip(i) != path)
            return file.dir().dirName() + "/" + file.fileName();
    }
    return file.fileName();
}

void MainWindow::renameTab(DocumentView *view, const QString &name)
{
    view->setDisplayName(name);
    const int i = tabs_->indexOf(view);
    if (i < 0)
        return;
    tabs_->setTabText(i, name + (view->notes()->undoStack()->isClean() ? QString() : QStringLiteral(" •")));
    if (i == tabs_->currentIndex()) {
        setWindowTitle(tr("%1 — memlens").arg(name));
        statusBar()->showMessage(view->statusText());
    }
}

int MainWindow::documentTabOf(const QString &path) const
{
    for (int i = 0; i < tabs_->count(); ++i) {
        if (auto *view = qobject_cast<DocumentView *>(tabs_->widget(i)); view && view->path() == path)
            return i;
    }
    return -1;
}

DocumentView *MainWindow::addDocumentTab(const QString &path, const QString &title)
{
    // A tab already open under this file's bare name goes by its folder too now: both were
    // "snapshot.pickle" (tab, title and export footer) when the first was opened first.
    if (title.contains('/')) {
        for (int i = 0; i < tabs_->count(); ++i) {
            auto *other = qobject_cast<DocumentView *>(tabs_->widget(i));
            if (other && !other->displayName().contains('/') && other->displayName() == QFileInfo(path).fileName())
                renameTab(other, QFileInfo(tabs_->tabToolTip(i)).dir().dirName() + "/" + other->displayName());
        }
    }
    auto *view = new DocumentView(tabs_);
    view->setSnapshotCache(cache_);
    undo_->addStack(view->notes()->undoStack()); // before the tab becomes current
    tabs_->addTab(view, title);
    const int index = tabs_->indexOf(view);
    view->setDisplayName(title);
    // A dot on the tab: notes changed since the session was opened or saved.
    connect(view->notes()->undoStack(), &QUndoStack::cleanChanged, this, [this, view] { renameTab(view, view->displayName()); });
    tabs_->setTabToolTip(index, path);
    tabs_->setCurrentIndex(index);
    updateCentral();
    connect(view, &DocumentView::statusChanged, this, [this, view](const QString &text) {
        if (view == currentDocument())
            statusBar()->showMessage(text);
    });
    connect(view, &DocumentView::estimatorRequested, this, &MainWindow::openEstimator);
    connect(view, &DocumentView::loadFailed, this, [this, view](const QString &message) {
        removeView(view);
        // Window-modal and non-blocking: other documents keep loading and redrawing meanwhile.
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot open snapshot"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setObjectName("loadError");
        box->open();
    });
    connect(view, &DocumentView::loadCancelled, this, [this, view] { removeView(view); });
    return view;
}

void MainWindow::removeView(DocumentView *view)
{
    const int index = tabs_->indexOf(view);
    if (index >= 0)
        tabs_->removeTab(index);
    view->deleteLater();
    updateCentral();
}

void MainWindow::closeTab(int index)
{
    if (auto *view = qobject_cast<DocumentView *>(tabs_->widget(index))) {
        if (!maySaveBeforeClosing(view))
            return;
        view->cancelLoad();
        removeView(view);
    } else if (QWidget *page = tabs_->widget(index)) { // a folder's rank overview
        tabs_->removeTab(index);
        page->deleteLater();
        updateCentral();
    }
}

void MainWindow::updateCentral()
{
    central_->setCurrentWidget(tabs_->count() > 0 ? static_cast<QWidget *>(tabs_) : start_);
}

void MainWindow::addRecent(const QString &path)
{
    QSettings settings;
    QStringList files = settings.value("recentFiles").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > 10)
        files.removeLast();
    settings.setValue("recentFiles", files);
    updateRecent();
}

void MainWindow::updateRecent()
{
    const QStringList files = QSettings().value("recentFiles").toStringList();
    recentMenu_->clear();
    const QFontMetrics fm(recentMenu_->font());
    for (const QString &f : files) {
        // "name — folder": the name whole, a long folder shortened in its middle.
        const QFileInfo info(f);
        const QString folder = fm.elidedText(QDir::toNativeSeparators(info.path()), Qt::ElideMiddle, 420);
        QAction *open = recentMenu_->addAction(tr("%1  —  %2").arg(info.fileName(), folder), this, [this, f] { openFile(f); });
        open->setToolTip(QDir::toNativeSeparators(f));
    }
    recentMenu_->setEnabled(!files.isEmpty());
    start_->setRecentFiles(files);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    for (const QUrl &url : event->mimeData()->urls()) {
        if (url.isLocalFile())
            openFile(url.toLocalFile());
    }
}

} // namespace memlens
