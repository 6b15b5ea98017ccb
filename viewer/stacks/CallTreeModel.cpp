#include "stacks/CallTreeModel.h"

#include "style/AllocationText.h"
#include "style/ByteText.h"

namespace memlens {

CallTreeModel::CallTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

void CallTreeModel::setTree(std::shared_ptr<const CallTree> tree)
{
    beginResetModel();
    tree_ = std::move(tree);
    endResetModel();
}

// Top-level rows are the root's children; internalId is the node id.
CallTreeNodeId CallTreeModel::nodeOf(const QModelIndex &index)
{
    return CallTreeNodeId(static_cast<uint32_t>(index.internalId()));
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!tree_ || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const CallTreeNodeId p = parent.isValid() ? nodeOf(parent) : CallTree::kRoot;
    const auto &children = tree_->node(p).children;
    if (row >= static_cast<int>(children.size()))
        return {};
    return createIndex(row, column, quintptr(children[static_cast<size_t>(row)].index()));
}

QModelIndex CallTreeModel::parent(const QModelIndex &child) const
{
    if (!tree_ || !child.isValid())
        return {};
    const CallTreeNodeId p = tree_->node(nodeOf(child)).parent;
    if (p == CallTree::kRoot || p.isNone())
        return {};
    const CallTreeNodeId grand = tree_->node(p).parent;
    const auto &siblings = tree_->node(grand).children;
    const auto row = std::find(siblings.begin(), siblings.end(), p) - siblings.begin();
    return createIndex(static_cast<int>(row), 0, quintptr(p.index()));
}

QModelIndex CallTreeModel::indexOfNode(CallTreeNodeId node) const
{
    if (!tree_ || node == CallTree::kRoot || node.index() >= tree_->size())
        return {};
    const CallTreeNodeId p = tree_->node(node).parent;
    const auto &siblings = tree_->node(p).children;
    const auto row = std::find(siblings.begin(), siblings.end(), node) - siblings.begin();
    return createIndex(static_cast<int>(row), 0, quintptr(node.index()));
}

int CallTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!tree_ || (parent.isValid() && parent.column() != 0))
        return 0;
    const CallTreeNodeId p = parent.isValid() ? nodeOf(parent) : CallTree::kRoot;
    return static_cast<int>(tree_->node(p).children.size());
}

int CallTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant CallTreeModel::data(const QModelIndex &index, int role) const
{
    if (!tree_ || !index.isValid())
        return {};
    const CallTreeNodeId id = nodeOf(index);
    const CallTreeNode &n = tree_->node(id);
    const double total = static_cast<double>(std::max<uint64_t>(1, tree_->root().bytes));
    if (role == NodeRole)
        return id.index();
    if (role == FractionRole)
        return static_cast<double>(n.bytes) / total;
    if (role == Qt::ToolTipRole)
        return QStringLiteral("%1\n%2 in %3 allocations").arg(QString::fromStdString(tree_->label(id)),
                                                               bytesText(n.bytes)).arg(n.count);
    if (role == Qt::TextAlignmentRole)
        return index.column() == FrameColumn || index.column() == Mostly || index.column() == Labels ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case FrameColumn: return QString::fromStdString(tree_->label(id));
    case Bytes: return bytesText(n.bytes);
    case Share: return QStringLiteral("%1 %").arg(100.0 * static_cast<double>(n.bytes) / total, 0, 'f', 1);
    case Count: return QVariant::fromValue<qulonglong>(n.count);
    case Mostly: {
        // The category holding most of the node's bytes, and its share.
        const auto top = std::max_element(n.categoryBytes.begin(), n.categoryBytes.end());
        if (*top == 0)
            return QString();
        const std::string_view name = categoryLabel(static_cast<Category>(top - n.categoryBytes.begin()));
        return QStringLiteral("%1 (%2 %)")
            .arg(QString::fromLatin1(name.data(), qsizetype(name.size())))
            .arg(qRound(100.0 * double(*top) / double(std::max<uint64_t>(1, n.bytes))));
    }
    case Labels: {
        QStringList labels;
        for (StringId text : n.labels)
            labels << snapshotText(tree_->snapshot(), text);
        if (n.labels.size() == CallTreeNode::kMaxLabels)
            labels << QStringLiteral("…");
        return labels.join(QStringLiteral(", "));
    }
    default: return {};
    }
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case FrameColumn: return tr("Frame");
    case Bytes: return tr("Bytes");
    case Share: return tr("Of live");
    case Count: return tr("Allocations");
    case Mostly: return tr("Mostly");
    case Labels: return tr("Labels");
    default: return {};
    }
}

} // namespace memlens
