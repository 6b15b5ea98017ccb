#pragma once
// The allocation timeline of one device: stacked allocation bands with level of detail,
// reserved bytes, phases, peak and OOM markers; wheel zoom, drag pan, shift-drag to zoom into a
// range, an overview strip, keyboard navigation, hover tooltips and click-to-select.
#include "document/Document.h"
#include "timeline/TimelineAxis.h"

#include <QWidget>
#include <memory>

class QCustomPlot;
class QLabel;
class QComboBox;
class QCheckBox;

namespace memlens {

class AllocationBandsPlottable;
class AnnotationSet;
class TimelineOverview;
class ViewState;

class TimelineView : public QWidget {
    Q_OBJECT

public:
    TimelineView(ViewState *state, QWidget *parent = nullptr);
    void setDocument(std::shared_ptr<const Document> doc);

    // Shows `event` (centred, zooming in if the whole trace is shown) and moves the cursor there.
    void revealEvent(uint32_t event);
    void fit();
    void zoomBy(double factor);
    void setDark(bool dark);
    void setAnnotations(const AnnotationSet *annotations);

    QCustomPlot *plot() const { return plot_; }
    AllocationBandsPlottable *bands() const { return bands_; }
    const TimelineAxis &axis() const { return axis_; }
    QString peakReadout() const;
    QString tooltipAt(const QPoint &plotPixel) const;

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();
    void onRangeChanged();
    void stepCursor(int delta);
    void nextOom();
    void clickAt(const QPoint &pixel);

    ViewState *state_;
    std::shared_ptr<const Document> doc_;
    const DeviceData *device_ = nullptr;
    TimelineAxis axis_;
    QCustomPlot *plot_;
    AllocationBandsPlottable *bands_;
    TimelineOverview *overview_;
    QLabel *readout_;
    QComboBox *axisMode_;
    QPoint pressAt_;
    bool clamping_ = false;
};

} // namespace memlens
