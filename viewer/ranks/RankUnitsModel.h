#pragma once
// A sharded job's units side by side (ranks/RankUnits): a row per unit, a column per rank, the
// bytes each rank held in that unit at its peak; a unit's cell that is more than 10 % off its
// row's median is tinted, as an outlier rank's row is in the rank table.
#include "ranks/RankUnits.h"

#include <QAbstractTableModel>
#include <vector>

namespace memlens {

class RankUnitsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    using QAbstractTableModel::QAbstractTableModel;
    void setRanks(const std::vector<RankFigures> &ranks);
    bool empty() const { return rows_.empty(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<RankUnitRow> rows_;
    std::vector<int> ranks_; // the column's rank
    std::vector<uint64_t> medians_; // per row
};

} // namespace memlens
