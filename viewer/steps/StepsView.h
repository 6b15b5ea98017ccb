#pragma once
// Memory per training step across the run: each step's peak as a bar (the step with the run's
// highest peak highlighted and named), the allocated bytes at its end and its peak reserved
// bytes as lines. Thousands of steps, narrower than a few pixels, are drawn per pixel column as
// the range of their peaks (lowest solid, highest lighter) instead of bars, which would alias into
// stripes, and the highest step keeps a visible width. Clicking a step shows it
// on the timeline; the wheel zooms along the steps.
#include "figures/Steps.h"

#include <QWidget>
#include <vector>

class QCPBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;

namespace memlens {

class ViewState;

class StepsView : public QWidget {
    Q_OBJECT

public:
    explicit StepsView(ViewState *state, QWidget *parent = nullptr);
    QCustomPlot *plot() const { return plot_; }
    QString readout() const;
    // The step drawn at a pixel of the plot (-1: none).
    int stepAt(const QPoint &pixel) const;
    // Whether steps are drawn as one envelope (narrower than kMinBarPixels each).
    bool drawsEnvelope() const;
    static constexpr double kMinBarPixels = 3.0;
    static constexpr double kMinGapLabelPixels = 110.0;
    // Zooms the shared visible range to step `index` and asks for the timeline.
    void showStep(int index);
    // Steps cut by the window or a gap (drawn hatched), and the gaps between recorded
    // iterations of a stitched run (a dashed line each, between the steps on either side).
    int partialStepsDrawn() const;
    QStringList gapLabels() const;

signals:
    void showTimeline();

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();
    void followDensity();
    void markGaps(const std::vector<StepSummary> &steps);

    ViewState *state_;
    QCustomPlot *plot_;
    QCPBars *peaks_;
    QCPBars *partial_;
    bool hasPartial_ = false;
    std::vector<QCPItemStraightLine *> gapLines_;
    std::vector<QCPItemText *> gapTexts_;
    QCPGraph *peakEnvelope_; // highest peak per pixel column
    QCPGraph *peakFloor_;    // lowest
    QCPBars *highest_;
    QCPItemText *highestLabel_;
    QCPGraph *endLine_;
    QCPGraph *reservedLine_;
    QLabel *readout_;
    std::vector<StepSummary> steps_; // the steps question's answer, as drawn
};

} // namespace memlens
