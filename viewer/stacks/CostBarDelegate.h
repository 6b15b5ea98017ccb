#pragma once
// Draws a proportional bar behind a cell's text (heaptrack's cost bars), from FractionRole.
#include <QStyledItemDelegate>

namespace memlens {

class CostBarDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    CostBarDelegate(int fractionRole, QObject *parent = nullptr) : QStyledItemDelegate(parent), role_(fractionRole) {}
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    int role_;
};

} // namespace memlens
