#pragma once
// One row per rank: its peak active and reserved bytes, OOM entries, bytes per category at the
// peak and its file. Outliers (peak more than 10 % off the median) get a tinted background,
// ranks with OOM entries bold red text.
#include "ranks/RankSummary.h"

#include <QAbstractTableModel>
#include <vector>

namespace memlens {

class RankTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Rank, Step, PeakActive, PeakReserved, Ooms, FirstCategory };
    static constexpr int kColumns = FirstCategory + kCategoryCount + 1; // + File

    using QAbstractTableModel::QAbstractTableModel;
    void setRanks(std::vector<RankFigures> ranks);
    const std::vector<RankFigures> &ranks() const { return ranks_; }
    const RankComparison &comparison() const { return comparison_; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    bool isOutlier(size_t row) const;

    std::vector<RankFigures> ranks_;
    RankComparison comparison_;
};

} // namespace memlens
