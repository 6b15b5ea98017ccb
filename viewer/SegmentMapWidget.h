#pragma once
// The allocator's segments at one event, drawn to scale: memory flows left to right in rows of
// a fixed number of bytes, one group of rows per pool and stream. Blocks use the timeline's
// colours, free space is left empty, rounding waste is shaded and pending frees are hatched.
// Only rows inside the visible rectangle are painted, so tens of thousands of segments scroll
// smoothly.
#include "AllocatorState.h"
#include "Document.h"

#include <QWidget>
#include <memory>

namespace memlens {

class SegmentMapWidget : public QWidget {
    Q_OBJECT

public:
    explicit SegmentMapWidget(QWidget *parent = nullptr);

    void setState(std::shared_ptr<const Document> doc, const DeviceData *device, AllocatorState state);
    void setSelectedAllocation(uint32_t allocation);
    void setBytesPerRow(uint64_t bytes);
    uint64_t bytesPerRow() const { return bytesPerRow_; }
    const AllocatorState &state() const { return state_; }

    // What is under a point: tooltip text and the allocation (UINT32_MAX: free space or none).
    QString describeAt(const QPoint &pos, uint32_t *allocation = nullptr) const;
    // Where a block is drawn (its first piece), for tests and "scroll to".
    QRect rectOfAllocation(uint32_t allocation) const;

    QSize sizeHint() const override;

signals:
    void allocationClicked(uint32_t allocation);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    struct Piece {
        QRectF rect;
        int segment;
        int block; // -1: the segment's header
    };
    void relayout();
    const Piece *pieceAt(const QPointF &pos) const;

    std::shared_ptr<const Document> doc_;
    const DeviceData *device_ = nullptr;
    AllocatorState state_;
    uint32_t selected_ = UINT32_MAX;
    uint64_t bytesPerRow_ = 64ull << 20;
    std::vector<std::vector<Piece>> rows_; // pieces per row of pixels (rowHeight each)
    std::vector<std::pair<int, QString>> headings_; // row, text
    int rowHeight_ = 18;
};

} // namespace memlens
