#pragma once
// Two runs on one axis: both runs' active (solid) and reserved (dashed) bytes, aligned by time,
// event or step, the gap between the active lines shaded, and each run's bytes per category at
// its peak below.
#include "views/RunOverlay.h"
#include "pipeline/Document.h"

#include <memory>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;

namespace memlens {

class RunOverlayView : public QWidget {
    Q_OBJECT

public:
    explicit RunOverlayView(QWidget *parent = nullptr);
    // Either may be null (nothing drawn for it yet).
    void setRuns(std::shared_ptr<const Document> a, int deviceA, std::shared_ptr<const Document> b, int deviceB);
    void setAlignment(OverlayAlignment alignment);
    OverlayAlignment alignment() const;
    QCustomPlot *plot() const { return plot_; }
    QString categoryText() const;
    QString titleText() const;

private:
    void refresh();
    const DeviceData *deviceA() const;
    const DeviceData *deviceB() const;

    std::shared_ptr<const Document> a_, b_;
    int deviceA_ = 0, deviceB_ = 0;
    QComboBox *align_;
    QLabel *title_;
    QCustomPlot *plot_;
    QLabel *categories_;
};

} // namespace memlens
