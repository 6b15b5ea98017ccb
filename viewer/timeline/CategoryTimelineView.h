#pragma once
// The stacked per-category memory timeline of an export_memory_timeline file (parameter,
// optimizer state, input, temporary, activation, gradient, autograd detail, unknown).
#include "document/Document.h"

#include <QWidget>
#include <memory>

class QCustomPlot;
class QLabel;

namespace memlens {

class CategoryTimelineView : public QWidget {
    Q_OBJECT

public:
    explicit CategoryTimelineView(QWidget *parent = nullptr);
    void setDocument(std::shared_ptr<const Document> doc);
    QCustomPlot *plot() const { return plot_; }
    QString readout() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();

    QCustomPlot *plot_;
    QLabel *readout_;
};

} // namespace memlens
