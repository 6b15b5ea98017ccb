#pragma once
// Memory by unit at the cursor (the peak when there is none): a bar per unit of a sharded run
// (FSDP's units, Megatron's module paths; figures/ModuleUnits), what each made that is live there,
// in the order the units ran, and what no unit made. Layers run under checkpoint are told apart
// when the run's setup says which. Clicking a bar lists that unit's allocations on the Live page.
#include <QWidget>

#include <cstdint>
#include <vector>

class QCPBars;
class QCustomPlot;
class QLabel;

namespace memlens {

class ViewState;

class UnitsPage : public QWidget {
    Q_OBJECT

public:
    explicit UnitsPage(ViewState *state, QWidget *parent = nullptr);
    QCustomPlot *plot() const { return plot_; }
    QString readout() const;
    // The unit of the bar at a pixel (ModuleUnits::kOutside for what no unit made); false: no bar.
    bool unitAt(const QPoint &pixel, int32_t &unit) const;

signals:
    // `unit`: a ModuleUnits index, or ModuleUnits::kOutside.
    void showUnitAllocations(int32_t unit, const QString &name);

protected:
    void changeEvent(QEvent *event) override;

private:
    void rebuild();
    void applyPalette();

    ViewState *state_;
    QLabel *readout_;
    QCustomPlot *plot_;
    QCPBars *plain_, *checkpointed_, *outside_, *beforeTrace_;
    std::vector<int32_t> rowUnits_; // the unit of each bar, top to bottom
};

} // namespace memlens
