// MainWindow's menus and their shortcuts (the rest of the window is in MainWindow.cpp).
#include "gui/MainWindow.h"

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
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoGroup>
#include <QUndoStack>

namespace memlens {

void MainWindow::createMenus()
{
    createFileMenu();
    createViewMenu();
    createNotesMenu();
    createToolsAndHelpMenus();
}

void MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::chooseFile);
    file->addAction(tr("Open &Folder of Ranks…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a folder of per-rank snapshots"));
        if (!dir.isEmpty())
            openFolder(dir);
    });
    file->addAction(tr("&Watch Folder…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Watch a folder a training job writes dumps into"));
        if (dir.isEmpty())
            return;
        openFolder(dir, true);
    });
    file->addAction(tr("Open &Example"), this, &MainWindow::openExample);
    file->addAction(tr("Co&mpare With…"), this, [this] {
        DocumentView *view = currentDocument();
        if (!view || !view->document()) {
            QMessageBox::information(this, tr("Compare"), tr("Open a snapshot first; it becomes A."));
            return;
        }
        const QString path = QFileDialog::getOpenFileName(this, tr("Compare with (B)"));
        if (path.isEmpty())
            return;
        auto *dialog = new CompareDialog(view->document(), view->state()->device(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
        dialog->compareWith(path);
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Session…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open session"), QString(), tr("memlens sessions (*.memlens)"));
        if (!path.isEmpty())
            openSession(path);
    });
    file->addAction(tr("&Save Session"), QKeySequence::Save, this, [this] { saveSession(currentDocument(), false); });
    file->addAction(tr("Save Session &As…"), QKeySequence::SaveAs, this, [this] { saveSession(currentDocument(), true); });
    file->addSeparator();
    file->addAction(tr("&Close"), QKeySequence::Close, this, [this] {
        if (tabs_->currentIndex() >= 0)
            closeTab(tabs_->currentIndex());
    });
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::createViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    // Ctrl+1 … Ctrl+9, then Ctrl+0, in the tabs' order (Page's).
    const std::pair<QString, Page> pages[] = {
        {tr("&Summary"), Page::Summary},   {tr("&Timeline"), Page::Timeline},           {tr("St&eps"), Page::Steps},
        {tr("Se&gments"), Page::Segments}, {tr("Segments &over Time"), Page::SegmentTimeline}, {tr("St&acks"), Page::Stacks},
        {tr("&Live Allocations"), Page::Live}, {tr("By &Unit"), Page::Modules}, {tr("By La&yer"), Page::Layers},
        {tr("&Categories"), Page::Categories}};
    int key = Qt::Key_1;
    for (const auto &[label, page] : pages) {
        QAction *action = view->addAction(label, QKeySequence(Qt::CTRL | key), this, [this, page = page] {
            if (DocumentView *d = currentDocument())
                d->showPage(page);
        });
        pageActions_.emplace_back(action, page);
        key = key == Qt::Key_9 ? Qt::Key_0 : key + 1;
    }
    connect(view, &QMenu::aboutToShow, this, &MainWindow::updatePageActions);
    view->addSeparator();
    view->addAction(tr("Export as PNG…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this, [this] { exportView(1.0, false); });
    view->addAction(tr("Export as PNG (2×)…"), this, [this] { exportView(2.0, false); });
    view->addAction(tr("Export as SVG…"), this, [this] { exportView(1.0, true); });
    view->addAction(tr("&Copy Image"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, [this] {
        if (DocumentView *d = currentDocument())
            QGuiApplication::clipboard()->setImage(exportImage(d->currentPage(), d->exportFooter(QCoreApplication::applicationVersion()), 2.0));
    });
    view->addAction(tr("Copy &Summary (Markdown)"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C), this, [this] {
        if (DocumentView *d = currentDocument(); d && d->document())
            if (const DeviceData *data = d->state()->deviceData())
                QGuiApplication::clipboard()->setText(QString::fromStdString(summaryMarkdown(*d->document()->snapshot, data->summary, d->document()->fileName())));
    });
}

void MainWindow::updatePageActions()
{
    DocumentView *d = currentDocument();
    for (const auto &[action, page] : pageActions_)
        action->setEnabled(d && d->hasPage(page));
}

void MainWindow::createNotesMenu()
{
    QMenu *notes = menuBar()->addMenu(tr("&Notes"));
    notes->addAction(tr("Add a Note at the &Peak"), this, [this] {
        if (DocumentView *d = currentDocument())
            d->addPeakNote();
    });
    notes->addAction(tr("Add a Note at This &OOM"), this, [this] {
        if (DocumentView *d = currentDocument(); d && !d->addOomNote())
            statusBar()->showMessage(tr("This snapshot has no OOM entry"), 5000);
    });
    notes->addSeparator();
    // Tools: the next click or drag on the timeline, segment map or flame graph draws one.
    const std::pair<QString, NoteKind> drawTools[] = {{tr("Draw &Note"), NoteKind::Note}, {tr("Draw &Arrow"), NoteKind::Arrow}, {tr("Draw &Box"), NoteKind::Box}};
    const Qt::Key toolKeys[] = {Qt::Key_N, Qt::Key_A, Qt::Key_B};
    for (int i = 0; i < 3; ++i) {
        notes->addAction(drawTools[i].first, QKeySequence(toolKeys[i]), this, [this, kind = drawTools[i].second] {
            if (DocumentView *d = currentDocument(); d && d->document())
                d->setNoteTool(kind);
        });
    }
    notes->addAction(tr("Add Note at the &Cursor…"), QKeySequence(Qt::SHIFT | Qt::Key_N), this, [this] {
        DocumentView *d = currentDocument();
        if (!d)
            return;
        QString text;
        if (askNoteText(this, tr("Note at the cursor"), text) && !text.trimmed().isEmpty())
            d->addNoteAtCursor(text);
    });
    notes->addSeparator();
    notes->addAction(tr("&Edit Selected Note…"), QKeySequence(Qt::Key_F2), this, [this] {
        if (DocumentView *d = currentDocument())
            d->editNote(d->notes()->selected());
    });
    notes->addAction(tr("&Delete Selected Note"), QKeySequence::Delete, this, [this] {
        if (DocumentView *d = currentDocument())
            d->notes()->remove(d->notes()->selected());
    });
    notes->addSeparator();
    // "Undo Move arrow", greyed out when there is nothing to undo in this document.
    QAction *undo = undo_->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    notes->addAction(undo);
    QAction *redo = undo_->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    notes->addAction(redo);
}

void MainWindow::createToolsAndHelpMenus()
{
    QMenu *tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(tr("Memory &Estimator…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] { openEstimator(); });

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&User Guide"), this, [this] { showHelpDialog(this, "guide", tr("memlens user guide"), userGuideMarkdown(), HelpFormat::Markdown); });
    help->addAction(tr("&Keyboard Shortcuts"), QKeySequence::HelpContents, this, &MainWindow::showShortcuts);
    help->addAction(tr("&About memlens"), this, [this] {
        QMessageBox::about(this, tr("About memlens"),
                           tr("<h3>memlens %1</h3><p>A viewer for PyTorch GPU memory snapshots.</p>").arg(QCoreApplication::applicationVersion()));
    });
}

} // namespace memlens
