#pragma once
// An icicle flame graph of a CallTree: the root on top, children below in proportion to bytes.
// Click a frame to zoom into it (click the root bar to reset); search highlights matches.
#include "CallTree.h"

#include <QWidget>
#include <memory>

namespace memlens {

class FlameGraphWidget : public QWidget {
    Q_OBJECT

public:
    explicit FlameGraphWidget(QWidget *parent = nullptr);
    void setTree(std::shared_ptr<const CallTree> tree);
    void setSearch(const QString &text);
    void zoomTo(uint32_t node);
    uint32_t zoomedNode() const { return zoom_; }
    uint32_t nodeAt(const QPoint &pos) const;
    QSize sizeHint() const override { return {800, 400}; }

signals:
    void nodeClicked(uint32_t node);

protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Box {
        QRectF rect;
        uint32_t node;
    };
    void layout() const; // boxes for the current size and zoom (cheap; done before use)

    std::shared_ptr<const CallTree> tree_;
    uint32_t zoom_ = 0;
    QString search_;
    mutable std::vector<Box> boxes_;
    mutable int rowHeight_ = 18;
};

} // namespace memlens
