#pragma once
// Per-step peaks of every rank as a heatmap: ranks as rows, steps as columns, darker for a higher
// peak active. A step's outliers are outlined in orange, a dump with an OOM filled red, so the
// odd rank and the one that died stand out on hundreds of ranks. Click a cell to show that step
// in the overview, double-click (or Enter on) a rank to open its dumps as one stitched run.
#include "ranks/RankStepGrid.h"

#include <QWidget>

namespace memlens {

class RankStepHeatmap : public QWidget {
    Q_OBJECT

public:
    explicit RankStepHeatmap(QWidget *parent = nullptr);
    void setGrid(RankStepGrid grid, std::vector<RankFigures> figures);
    const RankStepGrid &grid() const { return grid_; }
    const std::vector<RankFigures> &figures() const { return figures_; } // what the cells index
    // The cell under a point (row, column), or (-1, -1).
    std::pair<int, int> cellAt(QPointF point) const;
    QRectF cellRect(int row, int column) const;
    // The colour scale beside the cells: the highest peak's colour at its top, none at its bottom.
    QRectF scaleRect() const;
    int currentRow() const { return currentRow_; }
    int currentColumn() const { return currentColumn_; } // the clicked cell's step; -1 before a click

    QSize sizeHint() const override { return {600, 220}; }

signals:
    void stepClicked(const std::optional<int64_t> &step, int rank);
    void rankActivated(int rank);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool event(QEvent *event) override;

private:
    QRectF plotArea() const;
    // The colour scale: the gap before it, its bar, the gap before its labels.
    static constexpr int kScaleGap = 12, kScaleBar = 14, kScaleLabelGap = 4;
    int scaleWidth() const; // the scale and its labels
    void drawScale(QPainter &painter, bool dark) const;
    QString cellText(int row, int column) const;

    RankStepGrid grid_;
    std::vector<RankFigures> figures_;
    int currentRow_ = -1;
    int currentColumn_ = -1;
};

} // namespace memlens
