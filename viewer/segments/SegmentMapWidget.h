#pragma once
// The allocator's segments at one event, drawn to scale: memory flows left to right in rows of
// a fixed number of bytes, one group of rows per pool and stream. Blocks use the timeline's
// colours (per allocation, call site or category), free space is left empty, rounding waste is shaded and pending frees are hatched.
// Only rows inside the visible rectangle are painted, so tens of thousands of segments scroll
// smoothly. Notes are pinned to device addresses, so they follow a block or segment when
// the scale changes and disappear at events where that memory is not reserved.
#include "index/AllocatorState.h"
#include "notes/NotePlacement.h"
#include "pipeline/Document.h"
#include "style/BandColors.h"

#include <memory>
#include <QWidget>

namespace memlens {

class SegmentMapWidget : public QWidget, public NotePlacement {
    Q_OBJECT

public:
    explicit SegmentMapWidget(QWidget *parent = nullptr);

    void setState(std::shared_ptr<const Document> doc, const DeviceData *device, AllocatorState state);
    void setSelectedAllocation(AllocationId allocation);
    void setColorMode(ColorMode mode);
    static constexpr uint64_t kMinBytesPerRow = 1ull << 20, kMaxBytesPerRow = 16ull << 30;
    void setBytesPerRow(uint64_t bytes); // clamped to [kMinBytesPerRow, kMaxBytesPerRow]
    uint64_t bytesPerRow() const { return bytesPerRow_; }
    const AllocatorState &state() const { return state_; }

    // What is under a point: tooltip text and the allocation (none: free space or nothing).
    QString describeAt(const QPoint &pos, AllocationId *allocation = nullptr) const;
    // Where a block is drawn (its first piece), for tests and "scroll to".
    QRect rectOfAllocation(AllocationId allocation) const;

    QSize sizeHint() const override;

    void setNotes(const NoteSet *notes);
    // Where the first note shown at this event is (for scrolling to it).
    std::optional<QPointF> firstNotePixel() const;
    // The pixel where a device address is drawn (nothing: not in a segment at this event).
    std::optional<QPointF> pixelOfAddress(uint64_t address) const;
    NoteView noteView() const override { return NoteView::Segments; }
    std::optional<QPointF> headPixel(const Note &a) const override;
    std::optional<QPointF> tailPixel(const Note &a) const override;
    bool pinHead(Note &a, const QPointF &pixel) const override;
    bool pinTail(Note &a, const QPointF &pixel) const override;
    std::optional<QRectF> boxRect(const Note &a) const override;
    QRectF noteArea() const override { return rect(); }
    void refreshNotes() override { update(); }

signals:
    void allocationClicked(memlens::AllocationId allocation);
    void bytesPerRowChanged(uint64_t bytes);

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
        int block;
        uint64_t offset; // bytes into the block where this piece starts
        uint64_t length;
    };
    void relayout();
    const Piece *pieceAt(const QPointF &pos) const;
    // The piece under or nearest to a point (notes snap to memory).
    const Piece *nearestPiece(const QPointF &pos) const;
    std::optional<uint64_t> addressAt(const QPointF &pos) const;

    std::shared_ptr<const Document> doc_;
    const DeviceData *device_ = nullptr;
    AllocatorState state_;
    AllocationId selected_;
    ColorMode colorMode_ = ColorMode::Allocation;
    uint64_t bytesPerRow_ = 64ull << 20;
    std::vector<std::vector<Piece>> rows_; // pieces per row of pixels (rowHeight each)
    std::vector<std::pair<int, QString>> headings_; // row, text
    int rowHeight_ = 18;
    const NoteSet *notes_ = nullptr;
};

} // namespace memlens
