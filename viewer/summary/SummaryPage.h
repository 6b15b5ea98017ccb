#pragma once
// The first page of a loaded document (like heaptrack's summary): file facts, the peak, OOMs,
// the final allocator state, what would help, and the largest allocations live at the peak.
// Figures are links to the view that explains them.
#include "summary/LiveAllocationModel.h"

#include <memory>
#include <QWidget>

class QLabel;
class QScrollArea;
class QSplitter;
class QTableView;

namespace memlens {

class ViewState;

class FixList;

class SummaryPage : public QWidget {
    Q_OBJECT

public:
    SummaryPage(ViewState *state, QWidget *parent = nullptr);

    QString factsText() const;
    // The figures' grid: in a scroll area with the advice above the table, whole at any height.
    QLabel *figuresLabel() const { return figures_; }
    QTableView *liveTable() const { return table_; }
    FixList *fixList() const { return fixes_; }

signals:
    // The user asked to see an event on the timeline (peak, OOM, an allocation).
    void showOnTimeline(memlens::EventId event, memlens::AllocationId allocation);
    // …or the allocator's state there (the OOM verdict).
    void showSegments(memlens::EventId event);
    void showSteps();
    void showUnits(); // memory by unit (a sharded run's)
    void showLayers(); // memory by layer
    // What was created in earlier steps and never freed, at `event` (the end).
    void showLeaks(memlens::EventId event);
    // A fix of the current device's advice (-1: the inferred setup alone), in the estimator.
    void showInEstimator(int fix);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void refresh();
    void fitSplit();
    void onLink(const QString &link);
    void showHealth(); // the truncation evidence and the file's warnings, in a dialog

    ViewState *state_;
    QLabel *facts_;
    QLabel *figures_;
    QLabel *fixHeading_;
    FixList *fixes_;
    QTableView *table_;
    QSplitter *split_;
    QScrollArea *scroll_;
    bool userSplit_ = false;
    LiveAllocationModel *model_;
};

} // namespace memlens
