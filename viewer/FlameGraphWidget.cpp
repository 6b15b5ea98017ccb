#include "FlameGraphWidget.h"

#include "BandColors.h"
#include "ByteFormat.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace memlens {

FlameGraphWidget::FlameGraphWidget(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
}

void FlameGraphWidget::setTree(std::shared_ptr<const CallTree> tree)
{
    tree_ = std::move(tree);
    zoom_ = 0;
    update();
}

void FlameGraphWidget::setSearch(const QString &text)
{
    search_ = text;
    update();
}

void FlameGraphWidget::zoomTo(uint32_t node)
{
    zoom_ = tree_ && node < tree_->size() ? node : 0;
    update();
}

void FlameGraphWidget::layout() const
{
    boxes_.clear();
    if (!tree_)
        return;
    rowHeight_ = fontMetrics().height() + 4;
    // The zoomed node spans the width; its ancestors stay visible above it at full width.
    std::vector<uint32_t> ancestors;
    for (uint32_t n = zoom_; n != UINT32_MAX; n = tree_->node(n).parent)
        ancestors.push_back(n);
    std::reverse(ancestors.begin(), ancestors.end());
    const double w = width();
    int depth = 0;
    for (size_t i = 0; i + 1 < ancestors.size(); ++i)
        boxes_.push_back({QRectF(0, depth++ * rowHeight_, w, rowHeight_ - 1), ancestors[i]});
    std::vector<std::tuple<uint32_t, double, double, int>> work{{zoom_, 0.0, w, depth}};
    while (!work.empty()) {
        auto [node, x, width, d] = work.back();
        work.pop_back();
        boxes_.push_back({QRectF(x, d * rowHeight_, width, rowHeight_ - 1), node});
        const double total = static_cast<double>(std::max<uint64_t>(1, tree_->node(node).bytes));
        double cx = x;
        for (uint32_t c : tree_->node(node).children) {
            const double cw = width * static_cast<double>(tree_->node(c).bytes) / total;
            if (cw >= 1.0)
                work.emplace_back(c, cx, cw, d + 1);
            cx += cw;
        }
    }
}

void FlameGraphWidget::paintEvent(QPaintEvent *)
{
    layout();
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!tree_)
        return;
    const QFontMetrics fm(font());
    for (const Box &box : boxes_) {
        const QString label = box.node == 0 ? tr("all live: %1").arg(QString::fromStdString(formatBytes(tree_->root().bytes)))
                                            : QString::fromStdString(tree_->label(box.node));
        const bool hit = !search_.isEmpty() && label.contains(search_, Qt::CaseInsensitive);
        QColor c = hit ? QColor(255, 0, 200) : bandColor(0xF1A3E000ull + tree_->node(box.node).frame);
        c.setHsv(c.hue(), hit ? 200 : 90, 235);
        p.fillRect(box.rect, c);
        if (box.rect.width() > 30) {
            p.setPen(Qt::black);
            p.drawText(box.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(label, Qt::ElideRight, static_cast<int>(box.rect.width()) - 6));
        }
    }
}

uint32_t FlameGraphWidget::nodeAt(const QPoint &pos) const
{
    layout();
    for (const Box &box : boxes_) {
        if (box.rect.contains(pos))
            return box.node;
    }
    return UINT32_MAX;
}

void FlameGraphWidget::mousePressEvent(QMouseEvent *event)
{
    const uint32_t node = nodeAt(event->pos());
    if (node == UINT32_MAX)
        return;
    zoomTo(node == zoom_ ? tree_->node(node).parent == UINT32_MAX ? 0 : tree_->node(node).parent : node);
    emit nodeClicked(node);
}

bool FlameGraphWidget::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip && tree_) {
        auto *help = static_cast<QHelpEvent *>(e);
        const uint32_t node = nodeAt(help->pos());
        if (node != UINT32_MAX) {
            const CallTreeNode &n = tree_->node(node);
            QToolTip::showText(help->globalPos(), tr("%1\n%2 (%3 % of live) in %4 allocations")
                                                      .arg(QString::fromStdString(tree_->label(node)), QString::fromStdString(formatBytes(n.bytes)))
                                                      .arg(100.0 * double(n.bytes) / double(std::max<uint64_t>(1, tree_->root().bytes)), 0, 'f', 1)
                                                      .arg(n.count), this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(e);
}

} // namespace memlens
