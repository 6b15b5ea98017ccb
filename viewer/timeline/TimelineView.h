#pragma once
// The allocation timeline of one device: stacked allocation bands with level of detail,
// reserved bytes, phases, peak and OOM markers; wheel zoom, drag pan, shift-drag to zoom into a
// range, an overview strip, keyboard navigation, hover tooltips and click-to-select. It shows
// the ViewState's device and visible range, and hands the user's zooms and pans back to it.
#include "state/ViewState.h"

#include <memory>
#include <QWidget>

class QCPRange;
class QCustomPlot;
class QLabel;
class QComboBox;
class QCheckBox;
class QLineEdit;

namespace memlens {

class AllocationBandsPlottable;
class WhatIfOverlay;
class NoteSet;
class TimelineOverview;
class ViewState;

class TimelineView : public QWidget {
    Q_OBJECT

public:
    TimelineView(ViewState *state, QWidget *parent = nullptr);
    ~TimelineView() override;

    // Shows `event` (centred, zooming in if the whole trace is shown) and moves the cursor there.
    void revealEvent(EventId event);
    void fit();
    void zoomBy(double factor);
    void setNotes(const NoteSet *notes);
    // Draws now, with whatever else of the window waits to be painted, rather than after the
    // events queued (the first frame of a load, which the summarised stage, already queued for
    // a small file, would otherwise precede).
    void drawNow();

    QCustomPlot *plot() const { return plot_; }
    AllocationBandsPlottable *bands() const { return bands_; }
    QString peakReadout() const;
    QString tooltipAt(const QPoint &plotPixel) const;
    // Outlines the allocations matching `text` (AllocationSearch); "" clears it.
    void setSearchText(const QString &text);
    // Selects the next matching allocation after the selected one and reveals it.
    void nextSearchHit();
    QLineEdit *searchField() const { return search_; }
    // The category colours' legend, shown while the timeline is coloured by category.
    const QLabel *categoryLegend() const { return legend_; }

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void showWhatIf();
    void applyPalette();
    void onPlotRangeChanged(const QCPRange &range);
    void showRange(VisibleRange range);
    void stepCursor(int delta);
    void nextOom();
    void clickAt(const QPoint &pixel);

    ViewState *state_;
    QCustomPlot *plot_;
    AllocationBandsPlottable *bands_;
    TimelineOverview *overview_;
    QLabel *readout_;
    QLabel *legend_;
    QString readoutBase_; // the readout without the what-if's words
    std::unique_ptr<WhatIfOverlay> whatIf_;
    QComboBox *axisMode_;
    QLineEdit *search_;
    QLabel *searchHits_;
    QString searchNote_; // the search question's count in the run, or its refusal
    QPoint pressAt_;
    bool showingRange_ = false;
};

} // namespace memlens
