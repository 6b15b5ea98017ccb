#pragma once
// Segments over time, as PyTorch's memory_viz draws its "Active Cached Segment Timeline": each
// segment the allocator reserved a band over the events it lived through, stacked by address
// or by size, the part its live allocations use in full colour. With a what-if allocator
// setting on the Segments page, the reserved bytes the replay predicts run beside the bands.
// Clicking moves the shared cursor (the Segments page's map follows); double-clicking opens the
// Segments page there. Laid out again for the visible events whenever they change.
#include "views/SegmentTimeline.h"

#include <QWidget>

class QCPGraph;
class QCPItemStraightLine;
class QComboBox;
class QCustomPlot;
class QLabel;

namespace memlens {

class RefreshWhenShown;
class SegmentBandsPlottable;
class ViewState;

class SegmentTimelineView : public QWidget {
    Q_OBJECT

public:
    explicit SegmentTimelineView(ViewState *state, QWidget *parent = nullptr);

    QCustomPlot *plot() const { return plot_; }
    SegmentBandsPlottable *bands() const { return bands_; }
    SegmentOrder order() const;
    void setOrder(SegmentOrder order);
    // The recorded segments, or (with a what-if setting on the Segments page) those the
    // replay predicts under it.
    bool showsPredicted() const;
    void setShowsPredicted(bool predicted);
    // What the tooltip says at a pixel of the plot ("" over no band).
    QString describeAt(const QPoint &pixel) const;
    QString titleText() const;
    static constexpr int kMaxColumns = 1500;

signals:
    void showSegments();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void relayout();
    void followCursor();
    void showWhatIf();
    void applyPalette();
    void replotIfShown();
    EventId eventAtPixel(double x) const;

    ViewState *state_;
    QLabel *title_;
    QComboBox *order_;
    QComboBox *source_;
    QCustomPlot *plot_;
    SegmentBandsPlottable *bands_;
    QCPGraph *predicted_;
    QCPItemStraightLine *cursor_;
    RefreshWhenShown *refresh_;
    bool relayingOut_ = false;
    QPoint pressed_; // where the button went down: a drag pans, a click moves the cursor
};

} // namespace memlens
