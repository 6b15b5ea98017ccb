#include "segments/SegmentTableModel.h"

#include "style/ByteText.h"

namespace memlens {

SegmentTableModel::SegmentTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void SegmentTableModel::setState(const AllocatorState &state)
{
    beginResetModel();
    rows_.clear();
    for (const StateSegment &s : state.segments) {
        int blocks = 0;
        for (const StateBlock &b : s.blocks)
            blocks += b.state != BlockState::Inactive;
        rows_.push_back({s.addr, s.size, s.allocated, s.waste, s.free, s.largestFree, s.stream, s.pool, s.large, blocks});
    }
    endResetModel();
}

int SegmentTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int SegmentTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SegmentTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size()))
        return {};
    const Row &r = rows_[static_cast<size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == Pool ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    const bool edit = role == Qt::EditRole;
    if (role != Qt::DisplayRole && !edit)
        return {};
    auto size = [&](uint64_t v) -> QVariant {
        return edit ? QVariant::fromValue<qulonglong>(v) : QVariant(bytesText(v));
    };
    switch (index.column()) {
    case Address:
        return edit ? QVariant::fromValue<qulonglong>(r.addr) : QVariant(QStringLiteral("0x%1").arg(r.addr, 0, 16));
    case Pool:
        return QStringLiteral("%1 (%2, %3)").arg(r.large ? tr("large") : tr("small")).arg(r.pool.first).arg(r.pool.second);
    case Stream:
        return edit ? QVariant::fromValue<qulonglong>(r.stream) : QVariant(QString::number(r.stream));
    case Size: return size(r.size);
    case Allocated: return size(r.allocated);
    case Free: return size(r.free);
    case LargestFree: return size(r.largest);
    case Blocks: return r.blocks;
    case Waste: return size(r.waste);
    default: return {};
    }
}

QVariant SegmentTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Address: return tr("Segment");
    case Pool: return tr("Pool");
    case Stream: return tr("Stream");
    case Size: return tr("Size");
    case Allocated: return tr("Allocated");
    case Free: return tr("Free");
    case LargestFree: return tr("Largest free");
    case Blocks: return tr("Blocks");
    case Waste: return tr("Rounding waste");
    default: return {};
    }
}

} // namespace memlens
