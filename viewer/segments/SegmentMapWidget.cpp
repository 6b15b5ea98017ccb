#include "segments/SegmentMapWidget.h"

#include "notes/NotePainter.h"
#include "style/AllocationText.h"
#include "style/BandColors.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace memlens {

namespace {
constexpr int kMargin = 8;

} // namespace

SegmentMapWidget::SegmentMapWidget(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void SegmentMapWidget::setState(std::shared_ptr<const Document> doc, const DeviceData *device, AllocatorState state)
{
    doc_ = std::move(doc);
    device_ = device;
    state_ = std::move(state);
    relayout();
}

void SegmentMapWidget::setSelectedAllocation(AllocationId allocation)
{
    selected_ = allocation;
    update();
}

void SegmentMapWidget::setColorMode(ColorMode mode)
{
    colorMode_ = mode;
    update();
}

void SegmentMapWidget::setBytesPerRow(uint64_t bytes)
{
    bytes = std::clamp(bytes, kMinBytesPerRow, kMaxBytesPerRow);
    const bool changed = bytes != bytesPerRow_;
    bytesPerRow_ = bytes;
    relayout();
    if (changed)
        emit bytesPerRowChanged(bytes);
}

QSize SegmentMapWidget::sizeHint() const
{
    return {800, static_cast<int>(rows_.size()) * rowHeight_ + 2 * kMargin};
}

void SegmentMapWidget::resizeEvent(QResizeEvent *)
{
    relayout();
}

void SegmentMapWidget::relayout()
{
    rows_.clear();
    headings_.clear();
    const double width = std::max(100, this->width() - 2 * kMargin);
    const double pxPerByte = width / static_cast<double>(bytesPerRow_);
    rowHeight_ = fontMetrics().height() + 6;
    int row = 0;
    uint64_t offset = 0; // bytes used in the current row
    QString group;
    auto newRow = [&] {
        ++row;
        offset = 0;
    };
    auto place = [&](int segment, int block, uint64_t size) {
        // Split a run of `size` bytes across rows.
        uint64_t done = 0;
        while (size > 0) {
            const uint64_t take = std::min(size, bytesPerRow_ - offset);
            if (static_cast<size_t>(row) >= rows_.size())
                rows_.resize(static_cast<size_t>(row) + 1);
            const QRectF rect(kMargin + offset * pxPerByte, kMargin + row * rowHeight_ + 3,
                              std::max(1.0, take * pxPerByte), rowHeight_ - 6);
            rows_[static_cast<size_t>(row)].push_back({rect, segment, block, done, take});
            done += take;
            offset += take;
            size -= take;
            if (offset >= bytesPerRow_)
                newRow();
        }
    };
    for (size_t s = 0; s < state_.segments.size(); ++s) {
        const StateSegment &seg = state_.segments[s];
        QString g = seg.pool == std::pair<int64_t, int64_t>{0, 0} ? tr("default pool") : tr("private pool (%1, %2)").arg(seg.pool.first).arg(seg.pool.second);
        g += seg.large ? tr(", large segments") : tr(", small segments");
        if (seg.expandable)
            g += tr(", expandable");
        g += tr(", stream %1").arg(seg.stream);
        if (g != group) {
            if (offset > 0)
                newRow();
            if (!rows_.empty() || row > 0)
                newRow();
            headings_.emplace_back(row, g);
            newRow();
            group = g;
        }
        // A thin gap separates segments: one pixel's worth of bytes, so scale is kept.
        for (size_t b = 0; b < seg.blocks.size(); ++b)
            place(static_cast<int>(s), static_cast<int>(b), seg.blocks[b].size);
        if (offset > 0 && bytesPerRow_ - offset > static_cast<uint64_t>(2 / pxPerByte))
            offset += static_cast<uint64_t>(2 / pxPerByte);
    }
    if (static_cast<size_t>(row) >= rows_.size())
        rows_.resize(static_cast<size_t>(row) + 1);
    setMinimumHeight(static_cast<int>(rows_.size()) * rowHeight_ + 2 * kMargin);
    updateGeometry();
    update();
}

void SegmentMapWidget::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    const QPalette pal = palette();
    const bool dark = isDarkPalette(pal);
    p.fillRect(rect(), pal.color(QPalette::Base));
    const int first = std::max(0, (event->rect().top() - kMargin) / rowHeight_ - 1);
    const int last = std::min(static_cast<int>(rows_.size()) - 1, (event->rect().bottom() - kMargin) / rowHeight_ + 1);
    QColor holeEdge = pal.color(QPalette::Text);
    holeEdge.setAlpha(70);
    for (int r = first; r <= last; ++r) {
        for (const Piece &piece : rows_[static_cast<size_t>(r)]) {
            const StateSegment &seg = state_.segments[static_cast<size_t>(piece.segment)];
            const StateBlock &block = seg.blocks[static_cast<size_t>(piece.block)];
            if (piece.block == 0 && block.addr == seg.addr) // where a segment begins
                p.fillRect(QRectF(piece.rect.left() - 2, piece.rect.top() - 2, 2, piece.rect.height() + 4), pal.color(QPalette::Text));
            if (block.state == BlockState::Inactive) {
                p.setPen(QPen(holeEdge, 0));
                p.setBrush(Qt::NoBrush);
                p.drawRect(piece.rect.adjusted(0, 0, -0.5, -0.5));
                continue;
            }
            const QColor color = device_ ? allocationColor(*device_, block.allocation, colorMode_) : bandColor(block.allocation.index());
            p.fillRect(piece.rect, color);
            // Rounding waste: the tail of the block the user did not ask for.
            if (block.size > block.requested && block.size > 0) {
                const double frac = static_cast<double>(block.size - block.requested) / static_cast<double>(block.size);
                QRectF waste = piece.rect;
                waste.setLeft(piece.rect.right() - piece.rect.width() * frac);
                p.fillRect(waste, color.darker(170));
            }
            if (block.state == BlockState::ActivePendingFree)
                p.fillRect(piece.rect, QBrush(dark ? Qt::white : Qt::black, Qt::BDiagPattern));
            // A hairline where a block begins, so neighbours of one colour (a category, a call
            // site) still read as separate blocks.
            if (piece.offset == 0 && piece.block > 0 && piece.rect.width() > 4)
                p.fillRect(QRectF(piece.rect.left(), piece.rect.top(), 1, piece.rect.height()), pal.color(QPalette::Base));
            if (block.allocation == selected_) {
                p.setPen(QPen(dark ? Qt::white : Qt::black, 2));
                p.setBrush(Qt::NoBrush);
                p.drawRect(piece.rect);
            }
        }
    }
    p.setPen(pal.color(QPalette::Text));
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    for (const auto &[row, text] : headings_) {
        if (row < first - 1 || row > last + 1)
            continue;
        p.drawText(QRectF(kMargin, kMargin + row * rowHeight_, width() - 2 * kMargin, rowHeight_), Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    p.setFont(font());
    if (notes_)
        paintNotes(p, notes_->displayItems(), *this, notes_->selected(), dark);
}

void SegmentMapWidget::setNotes(const NoteSet *notes)
{
    notes_ = notes;
    for (auto signal : {&NoteSet::changed, &NoteSet::appearanceChanged})
        connect(notes, signal, this, qOverload<>(&QWidget::update));
}

std::optional<QPointF> SegmentMapWidget::firstNotePixel() const
{
    for (const Note &a : notes_ ? notes_->items() : QList<Note>()) {
        if (a.view != noteView())
            continue;
        if (const auto at = headPixel(a))
            return at;
    }
    return std::nullopt;
}

std::optional<QPointF> SegmentMapWidget::pixelOfAddress(uint64_t address) const
{
    for (const auto &row : rows_) {
        for (const Piece &piece : row) {
            const StateBlock &block = state_.segments[static_cast<size_t>(piece.segment)].blocks[static_cast<size_t>(piece.block)];
            const uint64_t start = block.addr + piece.offset;
            if (address >= start && address < start + piece.length)
                return QPointF(piece.rect.left() + piece.rect.width() * static_cast<double>(address - start) / static_cast<double>(piece.length),
                               piece.rect.center().y());
        }
    }
    return std::nullopt;
}

const SegmentMapWidget::Piece *SegmentMapWidget::nearestPiece(const QPointF &pos) const
{
    const Piece *best = nullptr;
    double bestDistance = 0;
    const int r = static_cast<int>((pos.y() - kMargin) / rowHeight_);
    // The nearest rows first; most rows hold pieces, so this stops early.
    for (int d = 0; d < static_cast<int>(rows_.size()) && !best; ++d) {
        for (int row : {r - d, r + d}) {
            if (row < 0 || row >= static_cast<int>(rows_.size()))
                continue;
            for (const Piece &piece : rows_[static_cast<size_t>(row)]) {
                const double dx = pos.x() < piece.rect.left() ? piece.rect.left() - pos.x() : pos.x() > piece.rect.right() ? pos.x() - piece.rect.right() : 0.0;
                if (!best || dx < bestDistance) {
                    best = &piece;
                    bestDistance = dx;
                }
            }
        }
    }
    return best;
}

std::optional<uint64_t> SegmentMapWidget::addressAt(const QPointF &pos) const
{
    const Piece *piece = nearestPiece(pos);
    if (!piece)
        return std::nullopt;
    const StateBlock &block = state_.segments[static_cast<size_t>(piece->segment)].blocks[static_cast<size_t>(piece->block)];
    const double frac = std::clamp((pos.x() - piece->rect.left()) / std::max(1.0, piece->rect.width()), 0.0, 1.0);
    const auto into = std::min<uint64_t>(piece->length - 1, static_cast<uint64_t>(frac * static_cast<double>(piece->length)));
    return block.addr + piece->offset + into;
}

std::optional<QPointF> SegmentMapWidget::headPixel(const Note &a) const
{
    if (!std::isfinite(a.x) || a.x < 0)
        return std::nullopt;
    return pixelOfAddress(static_cast<uint64_t>(a.x));
}

std::optional<QPointF> SegmentMapWidget::tailPixel(const Note &a) const
{
    if (a.kind == NoteKind::Box)
        return std::isfinite(a.x2) && a.x2 >= 0 ? pixelOfAddress(static_cast<uint64_t>(a.x2)) : std::nullopt;
    return offsetTail(a);
}

bool SegmentMapWidget::pinHead(Note &a, const QPointF &pixel) const
{
    const auto address = addressAt(pixel);
    if (!address)
        return false;
    a.x = static_cast<double>(*address); // addresses are below 2^53: exact in a double
    return true;
}

bool SegmentMapWidget::pinTail(Note &a, const QPointF &pixel) const
{
    if (a.kind == NoteKind::Box) {
        const auto address = addressAt(pixel);
        if (!address)
            return false;
        a.x2 = static_cast<double>(*address);
        return true;
    }
    return pinOffsetTail(a, pixel);
}

std::optional<QRectF> SegmentMapWidget::boxRect(const Note &a) const
{
    const auto h = headPixel(a), t = tailPixel(a);
    if (!h || !t)
        return std::nullopt;
    // Whole rows: the box covers the blocks from one corner's row to the other's.
    const double half = rowHeight_ / 2.0;
    return QRectF(QPointF(std::min(h->x(), t->x()), std::min(h->y(), t->y()) - half),
                  QPointF(std::max(h->x(), t->x()), std::max(h->y(), t->y()) + half));
}

const SegmentMapWidget::Piece *SegmentMapWidget::pieceAt(const QPointF &pos) const
{
    const int r = static_cast<int>((pos.y() - kMargin) / rowHeight_);
    if (r < 0 || r >= static_cast<int>(rows_.size()))
        return nullptr;
    for (const Piece &piece : rows_[static_cast<size_t>(r)]) {
        if (piece.rect.adjusted(0, -3, 0, 3).contains(pos))
            return &piece;
    }
    return nullptr;
}

QString SegmentMapWidget::describeAt(const QPoint &pos, AllocationId *allocation) const
{
    if (allocation)
        *allocation = AllocationId::none();
    const Piece *piece = pieceAt(pos);
    if (!piece)
        return {};
    const StateSegment &seg = state_.segments[static_cast<size_t>(piece->segment)];
    const StateBlock &block = seg.blocks[static_cast<size_t>(piece->block)];
    const double waste = seg.allocated ? 100.0 * static_cast<double>(seg.waste) / static_cast<double>(seg.allocated) : 0.0;
    const QString segmentText = tr("Segment 0x%1: %2, %3 allocated, %4 free (largest %5), internal waste %6 %, stream %7, pool (%8, %9)")
                                    .arg(seg.addr, 0, 16)
                                    .arg(bytesText(seg.size), bytesText(seg.allocated), bytesText(seg.free), bytesText(seg.largestFree))
                                    .arg(waste, 0, 'f', 1)
                                    .arg(seg.stream)
                                    .arg(seg.pool.first)
                                    .arg(seg.pool.second);
    if (block.state == BlockState::Inactive)
        return tr("Free: %1 at 0x%2\n%3").arg(bytesText(block.size)).arg(block.addr, 0, 16).arg(segmentText);
    if (allocation)
        *allocation = block.allocation;
    QString text = tr("%1 block (%2 requested) at 0x%3, %4")
                       .arg(bytesText(block.size), bytesText(block.requested))
                       .arg(block.addr, 0, 16)
                       .arg(QString::fromStdString(std::string(blockStateName(block.state))));
    if (device_)
        text += "\n" + allocationTooltip(*doc_, *device_->index, block.allocation, 3).section('\n', 2);
    return text + "\n" + segmentText;
}

QRect SegmentMapWidget::rectOfAllocation(AllocationId allocation) const
{
    for (const auto &row : rows_) {
        for (const Piece &piece : row) {
            if (state_.segments[static_cast<size_t>(piece.segment)].blocks[static_cast<size_t>(piece.block)].allocation == allocation)
                return piece.rect.toAlignedRect();
        }
    }
    return {};
}

void SegmentMapWidget::mouseMoveEvent(QMouseEvent *event)
{
    const QString text = describeAt(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void SegmentMapWidget::mousePressEvent(QMouseEvent *event)
{
    AllocationId allocation;
    describeAt(event->pos(), &allocation);
    emit allocationClicked(allocation);
}

void SegmentMapWidget::wheelEvent(QWheelEvent *event)
{
    if (!(event->modifiers() & Qt::ControlModifier)) {
        event->ignore(); // plain wheel scrolls the surrounding area
        return;
    }
    setBytesPerRow(event->angleDelta().y() > 0 ? bytesPerRow_ / 2 : bytesPerRow_ * 2);
    event->accept();
}

} // namespace memlens
