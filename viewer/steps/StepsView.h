#pragma once
// Memory per training step across the run: each step's peak as a bar (the step with the run's
// highest peak highlighted), the allocated bytes at its end and its peak reserved bytes as
// lines. Clicking a step shows it on the timeline.
#include <QWidget>

class QCPBars;
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
    // Zooms the shared visible range to step `index` and asks for the timeline.
    void showStep(int index);

signals:
    void showTimeline();

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();

    ViewState *state_;
    QCustomPlot *plot_;
    QCPBars *peaks_;
    QCPBars *highest_;
    QLabel *readout_;
};

} // namespace memlens
