#include "ranks/RankTableModel.h"

#include "style/ByteText.h"

#include <algorithm>
#include <filesystem>
#include <QColor>
#include <QFont>

namespace memlens {

void RankTableModel::setRanks(std::vector<RankFigures> ranks)
{
    beginResetModel();
    ranks_ = std::move(ranks);
    comparison_ = compareRanks(ranks_);
    endResetModel();
}

int RankTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(ranks_.size());
}

int RankTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : kColumns;
}

bool RankTableModel::isOutlier(size_t row) const
{
    return std::find(comparison_.outliers.begin(), comparison_.outliers.end(), row) != comparison_.outliers.end();
}

QVariant RankTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumns)
        return {};
    const auto row = static_cast<size_t>(index.row());
    const RankFigures &r = ranks_[row];
    const int column = index.column();
    const bool isFile = column == kColumns - 1;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        if (isFile)
            return QString::fromStdString(role == Qt::ToolTipRole ? r.file.path : std::filesystem::path(r.file.path).filename().string());
        if (!r.error.empty() && column >= PeakActive)
            return column == PeakActive ? QString::fromStdString(r.error) : QVariant();
        switch (column) {
        case Rank: return r.file.rank;
        case Step: return r.file.step ? QVariant(qlonglong(*r.file.step)) : QVariant(tr("—"));
        case PeakActive: return bytesText(r.peakActiveBytes);
        case PeakReserved: return bytesText(r.peakReservedBytes);
        case Ooms: return qulonglong(r.oomEntries);
        default: return bytesText(r.categoryBytesAtPeak[static_cast<size_t>(column - FirstCategory)]);
        }
    }
    if (role == Qt::UserRole) { // for sorting: the number behind the text
        switch (column) {
        case Rank: return r.file.rank;
        case Step: return qlonglong(r.file.step.value_or(-1));
        case PeakActive: return qulonglong(r.peakActiveBytes);
        case PeakReserved: return qulonglong(r.peakReservedBytes);
        case Ooms: return qulonglong(r.oomEntries);
        default:
            return isFile ? QVariant(QString::fromStdString(r.file.path))
                          : QVariant(qulonglong(r.categoryBytesAtPeak[static_cast<size_t>(column - FirstCategory)]));
        }
    }
    if (role == Qt::TextAlignmentRole && column >= PeakActive && !isFile)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && isOutlier(row))
        return QColor(255, 170, 60, 70);
    if (role == Qt::ForegroundRole && (r.oomEntries > 0 || !r.error.empty()))
        return QColor(210, 40, 40);
    if (role == Qt::FontRole && r.oomEntries > 0) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    return {};
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= kColumns)
        return {};
    switch (section) {
    case Rank: return tr("Rank");
    case Step: return tr("Step");
    case PeakActive: return tr("Peak active");
    case PeakReserved: return tr("Peak reserved");
    case Ooms: return tr("OOM");
    default:
        if (section == kColumns - 1)
            return tr("File");
        return QString::fromStdString(std::string(categoryLabel(static_cast<Category>(section - FirstCategory))));
    }
}

} // namespace memlens
