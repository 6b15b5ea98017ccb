#pragma once
// The stacked per-category memory timeline of an export_memory_timeline file (parameter,
// optimizer state, input, temporary, activation, gradient, autograd detail, unknown).
#include <QWidget>

class QCustomPlot;
class QLabel;

namespace memlens {

class ViewState;

class CategoryTimelineView : public QWidget {
    Q_OBJECT

public:
    CategoryTimelineView(const ViewState *state, QWidget *parent = nullptr);
    QCustomPlot *plot() const { return plot_; }
    QString readout() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();

    const ViewState *state_;
    QCustomPlot *plot_;
    QLabel *readout_;
};

} // namespace memlens
