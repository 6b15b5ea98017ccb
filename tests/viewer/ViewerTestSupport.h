#pragma once
// What the viewer's tests share: the corpus files they open, documents loaded the way the GUI
// loads them, and a shown DocumentView on a page.
#include "CorpusFiles.h"
#include "IdPrinting.h"
#include "SyntheticSnapshot.h"
#include "gui/MainWindow.h"
#include "index/FrameFilter.h"
#include "compare/CompareDialog.h"
#include "compare/RunNames.h"
#include "compare/RunOverlayView.h"
#include "decode/SnapshotLoader.h"
#include "document/DocumentView.h"
#include "document/SessionBinding.h"
#include "document/StartPage.h"
#include "estimator/EstimatorPanel.h"
#include "export/ViewExport.h"
#include "jobs/DeviceAdvice.h"
#include "jobs/DocumentLoader.h"
#include "jobs/JobRunner.h"
#include "model/ByteFormat.h"
#include "notes/NoteSet.h"
#include "ranks/RankOverviewPage.h"
#include "ranks/RankTableModel.h"
#include "report/SummaryMarkdown.h"
#include "segments/EventListModel.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentBandsPlottable.h"
#include "segments/SegmentTableModel.h"
#include "segments/SegmentTimelineView.h"
#include "segments/SegmentsPage.h"
#include "segments/WhatIfPanel.h"
#include "stacks/CallTreeModel.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "state/ViewState.h"
#include "steps/StepsView.h"
#include "style/BandColors.h"
#include "style/StatusColors.h"
#include "style/Theme.h"
#include "summary/FixList.h"
#include "summary/LiveAllocationModel.h"
#include "summary/LiveTensorsPage.h"
#include "style/ByteText.h"
#include "layers/LayersPage.h"
#include "units/UnitsPage.h"
#include "summary/SummaryPage.h"
#include "timeline/AllocationBandsPlottable.h"
#include "timeline/StackedLabels.h"
#include "timeline/StepLabelStride.h"
#include "timeline/TimelineView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QWheelEvent>
#include <qcustomplot.h>
#include <thread>

namespace memlens {

inline QString gpt2()
{
    return corpusDir() + "/snapshots/gpt2_fp32_adamw/snapshot.pickle";
}

inline std::shared_ptr<const Document> load(const QString &path)
{
    return loadDocument(path.toStdString(), StopAfter::Document, nullptr, adviseDevice).document;
}

// Runs `seen` as `watched` receives each event of `type`, before it handles it.
class EventWatch : public QObject {
public:
    EventWatch(QObject *watched, QEvent::Type type, std::function<void()> seen) : type_(type), seen_(std::move(seen))
    {
        watched->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == type_)
            seen_();
        return false;
    }

private:
    QEvent::Type type_;
    std::function<void()> seen_;
};

// A shown DocumentView on `doc` (with its timeline built), on `page`, at `size`.
// With MEMLENS_SHOTS=DIR set, the widget as the test sees it goes to DIR/NAME.png (for looking
// at what a test drives, and for the README).
inline void saveShot(QWidget *widget, const QString &name)
{
    if (const QString dir = qEnvironmentVariable("MEMLENS_SHOTS"); !dir.isEmpty()) {
        QTest::qWait(300); // queued replots
        widget->grab().save(dir + "/" + name + ".png");
    }
}

inline std::unique_ptr<DocumentView> openView(std::shared_ptr<const Document> doc, Page page, QSize size)
{
    auto view = std::make_unique<DocumentView>();
    view->setDocument({doc, buildTimelineLayouts(doc)});
    view->showPage(page);
    view->resize(size);
    view->show();
    return view;
}

// A generated 400-step run, made once per test executable for the tests that need one.
inline std::shared_ptr<const Document> run400()
{
    static QTemporaryDir generated;
    static std::shared_ptr<const Document> run;
    if (!run) {
        const QString file = generated.filePath("run400.pickle");
        QString error;
        runPythonTool("make_long_run.py", {corpusDir() + "/snapshots/frag_varlen_gpt2/snapshot.pickle.zst", file, "--steps", "400"}, &error);
        if (!error.isEmpty())
            qFatal("make_long_run.py: %s", qPrintable(error));
        run = load(file);
    }
    return run;
}

} // namespace memlens
