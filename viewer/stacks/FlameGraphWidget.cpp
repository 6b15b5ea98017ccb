#include "stacks/FlameGraphWidget.h"

#include "notes/NotePainter.h"
#include "style/BandColors.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"

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
    zoom_ = CallTree::kRoot;
    laidOut_ = {};
    update();
}

void FlameGraphWidget::setSearch(const QString &text)
{
    search_ = text;
    update();
}

void FlameGraphWidget::zoomTo(CallTreeNodeId node)
{
    zoom_ = tree_ && node.index() < tree_->size() ? node : CallTree::kRoot;
    update();
}

void FlameGraphWidget::layout() const
{
    // Notes and hit tests ask often; lay out again only when something changed.
    const auto key = std::make_tuple(tree_.get(), zoom_, size(), fontMetrics().height());
    if (key == laidOut_)
        return;
    laidOut_ = key;
    boxes_.clear();
    if (!tree_)
        return;
    rowHeight_ = fontMetrics().height() + 4;
    // The zoomed node spans the width; its ancestors stay visible above it at full width.
    std::vector<CallTreeNodeId> ancestors;
    for (CallTreeNodeId n = zoom_; !n.isNone(); n = tree_->node(n).parent)
        ancestors.push_back(n);
    std::reverse(ancestors.begin(), ancestors.end());
    const double w = width();
    int depth = 0;
    for (size_t i = 0; i + 1 < ancestors.size(); ++i)
        boxes_.push_back({QRectF(0, depth++ * rowHeight_, w, rowHeight_ - 1), ancestors[i]});
    std::vector<std::tuple<CallTreeNodeId, double, double, int>> work{{zoom_, 0.0, w, depth}};
    while (!work.empty()) {
        auto [node, x, width, d] = work.back();
        work.pop_back();
        boxes_.push_back({QRectF(x, d * rowHeight_, width, rowHeight_ - 1), node});
        const double total = static_cast<double>(std::max<uint64_t>(1, tree_->node(node).bytes));
        double cx = x;
        for (CallTreeNodeId c : tree_->node(node).children) {
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
        const QString label = box.node == CallTree::kRoot ? tr("all live: %1").arg(bytesText(tree_->root().bytes))
                                            : QString::fromStdString(tree_->label(box.node));
        const bool hit = !search_.isEmpty() && label.contains(search_, Qt::CaseInsensitive);
        QColor c = hit ? QColor(255, 0, 200) : bandColor(0xF1A3E000ull + tree_->node(box.node).frame.index());
        c.setHsv(c.hue(), hit ? 200 : 90, 235);
        p.fillRect(box.rect, c);
        if (box.rect.width() > 30) {
            p.setPen(Qt::black);
            p.drawText(box.rect.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(label, Qt::ElideRight, static_cast<int>(box.rect.width()) - 6));
        }
    }
    if (notes_)
        paintNotes(p, notes_->displayItems(), *this, notes_->selected(),
                         isDarkPalette(palette()));
}

void FlameGraphWidget::setNotes(const NoteSet *notes)
{
    notes_ = notes;
    for (auto signal : {&NoteSet::changed, &NoteSet::appearanceChanged})
        connect(notes, signal, this, qOverload<>(&QWidget::update));
}

QString FlameGraphWidget::pathOf(CallTreeNodeId node) const
{
    QStringList frames;
    for (CallTreeNodeId n = node; tree_ && n != CallTree::kRoot && n.index() < tree_->size(); n = tree_->node(n).parent)
        frames.prepend(QString::fromStdString(tree_->label(n)));
    return frames.join('\n');
}

CallTreeNodeId FlameGraphWidget::nodeOfPath(const QString &path) const
{
    if (!tree_)
        return {};
    CallTreeNodeId node = CallTree::kRoot;
    if (path.isEmpty())
        return node;
    for (const QString &frame : path.split('\n')) {
        const std::string label = frame.toStdString();
        CallTreeNodeId next;
        for (CallTreeNodeId c : tree_->node(node).children) {
            if (tree_->label(c) == label) {
                next = c;
                break;
            }
        }
        if (next.isNone())
            return {};
        node = next;
    }
    return node;
}

std::optional<QRectF> FlameGraphWidget::rectOfNode(CallTreeNodeId node) const
{
    if (!tree_ || node.index() >= tree_->size())
        return std::nullopt;
    layout();
    auto drawn = [this](CallTreeNodeId n) -> std::optional<QRectF> {
        for (const Box &box : boxes_) {
            if (box.node == n)
                return box.rect;
        }
        return std::nullopt;
    };
    if (auto rect = drawn(node))
        return rect;
    // Too narrow to draw: its nearest drawn ancestor stands in, but only inside the zoomed
    // subtree (outside it, the frame is simply not shown).
    std::optional<QRectF> standIn;
    for (CallTreeNodeId n = tree_->node(node).parent; !n.isNone(); n = tree_->node(n).parent) {
        if (!standIn)
            standIn = drawn(n);
        if (n == zoom_)
            return standIn;
    }
    return std::nullopt;
}

std::optional<QPointF> FlameGraphWidget::headPixel(const Note &a) const
{
    const auto rect = rectOfNode(nodeOfPath(a.target));
    if (!rect || !std::isfinite(a.x) || !std::isfinite(a.y))
        return std::nullopt;
    return QPointF(rect->left() + std::clamp(a.x, 0.0, 1.0) * rect->width(), rect->top() + std::clamp(a.y, 0.0, 1.0) * rect->height());
}

std::optional<QPointF> FlameGraphWidget::tailPixel(const Note &a) const
{
    if (a.kind == NoteKind::Box) {
        const auto box = boxRect(a);
        return box ? std::optional<QPointF>(box->bottomRight()) : std::nullopt;
    }
    return offsetTail(a);
}

bool FlameGraphWidget::pinHead(Note &a, const QPointF &pixel) const
{
    layout();
    for (const Box &box : boxes_) {
        if (box.rect.adjusted(0, 0, 0, 1).contains(pixel)) {
            a.target = pathOf(box.node);
            a.x = std::clamp((pixel.x() - box.rect.left()) / std::max(1.0, box.rect.width()), 0.0, 1.0);
            a.y = std::clamp((pixel.y() - box.rect.top()) / std::max(1.0, box.rect.height()), 0.0, 1.0);
            return true;
        }
    }
    return false;
}

bool FlameGraphWidget::pinTail(Note &a, const QPointF &pixel) const
{
    const auto rect = rectOfNode(nodeOfPath(a.target));
    if (!rect)
        return false;
    if (a.kind == NoteKind::Box) {
        // A box outlines its frame and, dragged down, the rows of callees below it.
        a.x2 = 0;
        a.y2 = std::max(0.0, std::round((pixel.y() - rect->bottom()) / rowHeight_));
        return true;
    }
    return pinOffsetTail(a, pixel);
}

std::optional<QRectF> FlameGraphWidget::boxRect(const Note &a) const
{
    auto rect = rectOfNode(nodeOfPath(a.target));
    if (!rect || !std::isfinite(a.y2))
        return std::nullopt;
    rect->setBottom(rect->bottom() + std::clamp(a.y2, 0.0, 200.0) * rowHeight_);
    return rect->adjusted(-1, -1, 1, 1);
}

CallTreeNodeId FlameGraphWidget::nodeAt(const QPoint &pos) const
{
    layout();
    for (const Box &box : boxes_) {
        if (box.rect.contains(pos))
            return box.node;
    }
    return {};
}

void FlameGraphWidget::mousePressEvent(QMouseEvent *event)
{
    const CallTreeNodeId node = nodeAt(event->pos());
    if (node.isNone())
        return;
    zoomTo(node == zoom_ ? tree_->node(node).parent.isNone() ? CallTree::kRoot : tree_->node(node).parent : node);
    emit nodeClicked(node);
}

bool FlameGraphWidget::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip && tree_) {
        auto *help = static_cast<QHelpEvent *>(e);
        const CallTreeNodeId node = nodeAt(help->pos());
        if (!node.isNone()) {
            const CallTreeNode &n = tree_->node(node);
            QToolTip::showText(help->globalPos(), tr("%1\n%2 (%3 % of live) in %4 allocations")
                                                      .arg(QString::fromStdString(tree_->label(node)), bytesText(n.bytes))
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
