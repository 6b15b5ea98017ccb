#pragma once
// A CallTree as an item model: frame, bytes (with a cost bar), share of the total, count, the
// category holding most, and the annotate labels of the allocations below.
#include "views/CallTree.h"

#include <memory>
#include <QAbstractItemModel>

namespace memlens {

class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { FrameColumn, Bytes, Share, Count, Mostly, Labels, ColumnCount };
    static constexpr int FractionRole = Qt::UserRole + 1;
    static constexpr int NodeRole = Qt::UserRole + 2;

    explicit CallTreeModel(QObject *parent = nullptr);
    void setTree(std::shared_ptr<const CallTree> tree);
    const CallTree *tree() const { return tree_.get(); }
    QModelIndex indexOfNode(CallTreeNodeId node) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    static CallTreeNodeId nodeOf(const QModelIndex &index);
    std::shared_ptr<const CallTree> tree_;
};

} // namespace memlens
