#pragma once
// Memory by layer in the forward pass the run peaked in or after (figures/LayerFigures): per layer
// of the model's layer loop, found in the stacks, in the order the pass ran them, a bar for its
// forward stacking what it keeps for backward, what it made and never freed (the first layer's
// cuBLAS workspace) and what it needs only for a moment, and beside it a bar for its backward
// (what it keeps past it, what it needs for a moment); a dot marks what of the forward is live at
// the run's peak. Clicking a layer shows its forward on the timeline.
#include <QWidget>

class QCPBars;
class QCPGraph;
class QCustomPlot;
class QLabel;

namespace memlens {

class ViewState;

class LayersPage : public QWidget {
    Q_OBJECT

public:
    explicit LayersPage(ViewState *state, QWidget *parent = nullptr);
    QCustomPlot *plot() const { return plot_; }
    QString readout() const;
    // The layer of the bar at a pixel; -1: no bar.
    int layerAt(const QPoint &pixel) const;
    void showLayer(int layer);

signals:
    void showTimeline();

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();

    ViewState *state_;
    QLabel *readout_;
    QCustomPlot *plot_;
    QCPBars *retained_, *unfreed_, *transient_, *backwardKept_, *backwardTransient_;
    QCPGraph *atPeak_;
};

} // namespace memlens
