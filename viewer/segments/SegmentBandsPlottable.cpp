#include "segments/SegmentBandsPlottable.h"

#include <algorithm>

namespace memlens {

namespace {
// MemoryViz's palette (Tableau 10), one colour per segment life in turn.
const QColor kPalette[] = {QColor(0x4e79a7), QColor(0xf28e2c), QColor(0xe15759), QColor(0x76b7b2), QColor(0x59a14f),
                           QColor(0xedc949), QColor(0xaf7aa1), QColor(0xff9da7), QColor(0x9c755f), QColor(0xbab0ab)};
} // namespace

SegmentBandsPlottable::SegmentBandsPlottable(QCPAxis *keyAxis, QCPAxis *valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setAntialiasedFill(false);
}

void SegmentBandsPlottable::setFrame(SegmentTimelineFrame frame, std::vector<double> columnX)
{
    frame_ = std::move(frame);
    columnX_ = std::move(columnX);
}

QPolygonF SegmentBandsPlottable::outline(const SegmentBand &band, bool usedOnly) const
{
    // Along the top left to right, back along the bottom: a step per column.
    QPolygonF top, bottom;
    for (size_t i = 0; i < band.bottom.size(); ++i) {
        const size_t c = band.firstColumn + i;
        const double x0 = mKeyAxis->coordToPixel(columnX_[c]), x1 = mKeyAxis->coordToPixel(columnX_[c + 1]);
        const double low = mValueAxis->coordToPixel(double(band.bottom[i]));
        const double high = mValueAxis->coordToPixel(double(band.bottom[i] + (usedOnly ? std::min(band.used[i], band.size) : band.size)));
        top << QPointF(x0, high) << QPointF(x1, high);
        bottom << QPointF(x0, low) << QPointF(x1, low);
    }
    std::reverse(bottom.begin(), bottom.end());
    return top + bottom;
}

void SegmentBandsPlottable::draw(QCPPainter *painter)
{
    if (columnX_.size() != frame_.columnLast.size() + 1)
        return;
    painter->setPen(Qt::NoPen);
    // The edges of segments tall enough to show them are drawn last, so that neighbours of one
    // colour stay apart; on thinner ones an edge would hide the band.
    std::vector<QPolygonF> edged;
    const double zero = mValueAxis->coordToPixel(0);
    for (const SegmentBand &band : frame_.bands) {
        const QColor color = kPalette[band.life.index() % std::size(kPalette)];
        QColor pale = color;
        pale.setAlpha(occupancyKnown_ ? (dark_ ? 70 : 60) : 150);
        painter->setBrush(pale);
        QPolygonF whole = outline(band, false);
        painter->drawPolygon(whole);
        if (occupancyKnown_) {
            painter->setBrush(color);
            painter->drawPolygon(outline(band, true));
        }
        if (std::abs(mValueAxis->coordToPixel(double(band.size)) - zero) >= kMinEdgedPixels)
            edged.push_back(std::move(whole));
    }
    painter->setPen(QPen(dark_ ? QColor(30, 30, 30) : Qt::white, 0.5));
    painter->setBrush(Qt::NoBrush);
    for (const QPolygonF &whole : edged)
        painter->drawPolygon(whole);
}

void SegmentBandsPlottable::drawLegendIcon(QCPPainter *painter, const QRectF &rect) const
{
    painter->setBrush(kPalette[0]);
    painter->drawRect(rect);
}

const SegmentBand *SegmentBandsPlottable::bandAtPixel(const QPointF &pixel, size_t *column) const
{
    if (columnX_.size() != frame_.columnLast.size() + 1 || columnX_.size() < 2)
        return nullptr;
    const double x = mKeyAxis->pixelToCoord(pixel.x()), y = mValueAxis->pixelToCoord(pixel.y());
    const auto it = std::upper_bound(columnX_.begin(), columnX_.end(), x);
    if (it == columnX_.begin() || it == columnX_.end())
        return nullptr;
    const auto c = static_cast<size_t>(it - columnX_.begin() - 1);
    for (const SegmentBand &band : frame_.bands) {
        if (c < band.firstColumn || c >= band.endColumn())
            continue;
        const double low = double(band.bottom[c - band.firstColumn]);
        if (y >= low && y < low + double(band.size)) {
            if (column)
                *column = c;
            return &band;
        }
    }
    return nullptr;
}

double SegmentBandsPlottable::selectTest(const QPointF &pos, bool onlySelectable, QVariant *) const
{
    if (onlySelectable && !mSelectable)
        return -1;
    return bandAtPixel(pos) ? 0 : -1;
}

QCPRange SegmentBandsPlottable::getKeyRange(bool &foundRange, QCP::SignDomain) const
{
    foundRange = columnX_.size() >= 2;
    return foundRange ? QCPRange(columnX_.front(), columnX_.back()) : QCPRange();
}

QCPRange SegmentBandsPlottable::getValueRange(bool &foundRange, QCP::SignDomain, const QCPRange &) const
{
    const uint64_t top = frame_.stacked.empty() ? 0 : *std::max_element(frame_.stacked.begin(), frame_.stacked.end());
    foundRange = top > 0;
    return QCPRange(0, double(top));
}

} // namespace memlens
