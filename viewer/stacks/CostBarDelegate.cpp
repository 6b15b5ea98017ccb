#include "stacks/CostBarDelegate.h"

#include <QPainter>

namespace memlens {

void CostBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const double fraction = std::clamp(index.data(role_).toDouble(), 0.0, 1.0);
    painter->save();
    QColor bar = option.palette.color(QPalette::Highlight);
    bar.setAlpha(90);
    QRect r = option.rect.adjusted(2, 3, -2, -3);
    r.setWidth(static_cast<int>(r.width() * fraction));
    painter->fillRect(r, bar);
    painter->restore();
    QStyledItemDelegate::paint(painter, option, index);
}

} // namespace memlens
