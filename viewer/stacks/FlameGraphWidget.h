#pragma once
// An icicle flame graph of a CallTree: the root on top, children below in proportion to bytes.
// Click a frame to zoom into it (click the root bar to reset); search highlights matches.
// Notes are pinned to a frame path, so they find their frame again in the tree of another
// event or after zooming; a frame too narrow to draw lends its place to its nearest drawn parent.
#include "views/CallTree.h"
#include "notes/NotePlacement.h"

#include <memory>
#include <QWidget>
#include <tuple>

namespace memlens {

class FlameGraphWidget : public QWidget, public NotePlacement {
    Q_OBJECT

public:
    explicit FlameGraphWidget(QWidget *parent = nullptr);
    void setTree(std::shared_ptr<const CallTree> tree);
    const std::shared_ptr<const CallTree> &tree() const { return tree_; }
    void setSearch(const QString &text);
    void zoomTo(CallTreeNodeId node);
    CallTreeNodeId zoomedNode() const { return zoom_; }
    CallTreeNodeId nodeAt(const QPoint &pos) const;
    QSize sizeHint() const override { return {800, 400}; }

    void setNotes(const NoteSet *notes);
    // A node's frame path from the root ('\n' between frames), and back (UINT32_MAX: not in the tree).
    QString pathOf(CallTreeNodeId node) const;
    CallTreeNodeId nodeOfPath(const QString &path) const;
    // Where a node is drawn now (its nearest drawn ancestor inside the zoomed subtree).
    std::optional<QRectF> rectOfNode(CallTreeNodeId node) const;
    NoteView noteView() const override { return NoteView::FlameGraph; }
    std::optional<QPointF> headPixel(const Note &a) const override;
    std::optional<QPointF> tailPixel(const Note &a) const override;
    bool pinHead(Note &a, const QPointF &pixel) const override;
    bool pinTail(Note &a, const QPointF &pixel) const override;
    std::optional<QRectF> boxRect(const Note &a) const override;
    QRectF noteArea() const override { return rect(); }
    void refreshNotes() override { update(); }

signals:
    void nodeClicked(CallTreeNodeId node);

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Box {
        QRectF rect;
        CallTreeNodeId node;
    };
    void layout() const; // boxes for the current size and zoom (cheap; done before use)

    std::shared_ptr<const CallTree> tree_;
    CallTreeNodeId zoom_ = CallTree::kRoot;
    QString search_;
    mutable std::vector<Box> boxes_;
    mutable int rowHeight_ = 18;
    mutable std::tuple<const CallTree *, CallTreeNodeId, QSize, int> laidOut_{nullptr, CallTree::kRoot, QSize(), 0};
    const NoteSet *notes_ = nullptr;
};

} // namespace memlens
