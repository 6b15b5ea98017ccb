#pragma once
// Peak active (bars) and peak reserved (ticks) bytes across ranks, the median as a line;
// outliers and OOM ranks in their own colours. Clicking a bar selects that rank.
#include "ranks/RankSummary.h"

#include <QWidget>

class QCustomPlot;

namespace memlens {

class RankChart : public QWidget {
    Q_OBJECT

public:
    explicit RankChart(QWidget *parent = nullptr);
    void setRanks(const std::vector<RankFigures> &ranks, const RankComparison &comparison);
    QCustomPlot *plot() const { return plot_; }

signals:
    void rankClicked(int row);

protected:
    void changeEvent(QEvent *event) override; // a theme switched while shown

private:
    QCustomPlot *plot_;
    std::vector<RankFigures> ranks_; // drawn again in the colours of a new theme
    RankComparison comparison_;
};

} // namespace memlens
