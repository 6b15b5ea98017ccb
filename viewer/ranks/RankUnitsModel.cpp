#include "ranks/RankUnitsModel.h"

#include "style/ByteText.h"

#include <algorithm>
#include <QColor>

namespace memlens {

void RankUnitsModel::setRanks(const std::vector<RankFigures> &ranks)
{
    beginResetModel();
    rows_ = unitsAcrossRanks(ranks);
    ranks_.clear();
    for (const RankFigures &r : ranks)
        ranks_.push_back(r.file.rank);
    medians_.clear();
    for (const RankUnitRow &row : rows_)
        medians_.push_back(row.median());
    endResetModel();
}

int RankUnitsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RankUnitsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || rows_.empty() ? 0 : static_cast<int>(ranks_.size()) + 1;
}

QVariant RankUnitsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const RankUnitRow &row = rows_[static_cast<size_t>(index.row())];
    if (index.column() == 0) {
        if (role == Qt::UserRole) // sorted by it: the order of unitsAcrossRanks (most first)
            return index.row();
        if (role != Qt::DisplayRole)
            return {};
        return !row.unit.empty() ? QString::fromStdString(row.unit) : row.beforeTrace ? tr("(made before the trace)") : tr("(outside every unit)");
    }
    const uint64_t bytes = row.bytes[static_cast<size_t>(index.column() - 1)];
    const uint64_t median = medians_[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return bytesText(bytes);
    case Qt::UserRole: return qulonglong(bytes);
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole:
        if (double(bytes > median ? bytes - median : median - bytes) > RankComparison::kOutlierShare * double(std::max(bytes, median)))
            return QColor(255, 170, 60, 70);
        return {};
    default: return {};
    }
}

QVariant RankUnitsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    return section == 0 ? tr("Unit") : tr("Rank %1").arg(ranks_[static_cast<size_t>(section - 1)]);
}

} // namespace memlens
