#pragma once
// The what-if replay on the timeline: the predicted reserved bytes as a solid step line beside
// the recorded (dashed) one, and a predicted OOM as a vertical line, in the axis's x units.
#include <QString>

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;

namespace memlens {

class ViewState;

class WhatIfOverlay {
public:
    explicit WhatIfOverlay(QCustomPlot *plot);

    // Redraws from the state's what-if (hidden when there is none) and returns the readout's
    // words for it ("" when none). Raises the y range to the predicted peak when it is higher.
    QString update(const ViewState &state);

private:
    QCustomPlot *plot_;
    QCPGraph *line_;
    QCPItemStraightLine *oom_;
    QCPItemText *oomLabel_;
};

} // namespace memlens
