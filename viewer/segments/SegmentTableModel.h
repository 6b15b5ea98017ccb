#pragma once
// One row per segment of an AllocatorState: address, pool, stream, size, allocated, free,
// largest free block, blocks, rounding waste. Sortable through a proxy (EditRole holds numbers).
#include "index/AllocatorState.h"

#include <QAbstractTableModel>

namespace memlens {

class SegmentTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Address, Pool, Stream, Size, Allocated, Free, LargestFree, Blocks, Waste, ColumnCount };

    explicit SegmentTableModel(QObject *parent = nullptr);
    void setState(const AllocatorState &state);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Row {
        uint64_t addr, size, allocated, waste, free, largest, stream;
        std::pair<int64_t, int64_t> pool;
        bool large;
        int blocks;
    };
    std::vector<Row> rows_;
};

} // namespace memlens
