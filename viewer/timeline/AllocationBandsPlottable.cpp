#include "timeline/AllocationBandsPlottable.h"
#include "timeline/StackedLabels.h"


#include "state/ViewState.h"
#include "notes/NotePainter.h"
#include "style/AllocationText.h"
#include "style/BandColors.h"
#include "style/ByteText.h"
#include "timeline/GapBreaks.h"
#include "timeline/StepLabelStride.h"

#include <algorithm>
#include <cmath>

namespace memlens {

AllocationBandsPlottable::AllocationBandsPlottable(const ViewState *state, QCPAxis *keyAxis, QCPAxis *valueAxis)
    : QCPAbstractPlottable(keyAxis, valueAxis), state_(state)
{
    // A frame's allocation ids belong to the device it was drawn for.
    connect(state_, &ViewState::deviceChanged, this, [this] { frame_ = {}; });
    setName(tr("Allocations"));
    setAntialiased(false);
    setAntialiasedFill(false);
}

const DeviceData *AllocationBandsPlottable::device() const
{
    return state_->deviceData();
}

const TimelineAxis &AllocationBandsPlottable::axis() const
{
    return state_->axis();
}

QCPRange AllocationBandsPlottable::getKeyRange(bool &foundRange, QCP::SignDomain) const
{
    foundRange = device() != nullptr;
    return QCPRange(axis().xMin(), axis().xMax());
}

QCPRange AllocationBandsPlottable::getValueRange(bool &foundRange, QCP::SignDomain, const QCPRange &) const
{
    foundRange = device() != nullptr;
    if (!device())
        return {};
    return QCPRange(0, static_cast<double>(device()->stackedPeakBytes));
}

double AllocationBandsPlottable::selectTest(const QPointF &pos, bool, QVariant *) const
{
    return allocationAtPixel(pos).isNone() ? -1 : 0;
}

AllocationId AllocationBandsPlottable::allocationAtPixel(const QPointF &pixel, EventId *event) const
{
    if (frame_.total.empty() || !device())
        return AllocationId::none();
    const long c = columnAtPixel(pixel.x());
    if (c < 0)
        return AllocationId::none();
    if (event)
        *event = frame_.columnEvent[static_cast<size_t>(c)];
    const double value = mValueAxis->pixelToCoord(pixel.y());
    for (const TimelineBand &band : frame_.bands) {
        if (!band.alive(static_cast<size_t>(c)))
            continue;
        const double bottom = static_cast<double>(band.bottomAt(static_cast<size_t>(c)));
        const double top = bottom + static_cast<double>(band.size);
        if (value >= bottom && value < top)
            return band.allocation;
    }
    return AllocationId::none();
}

long AllocationBandsPlottable::columnAtPixel(double x) const
{
    const auto c = static_cast<long>(std::floor((x - frameLeft_) / columnWidth_));
    return c >= 0 && c < static_cast<long>(frame_.total.size()) ? c : -1;
}

double AllocationBandsPlottable::pixelOfEvent(EventId event) const
{
    if (!device() || event.isNone())
        return -1;
    return mKeyAxis->coordToPixel(axis().xOfEvent(event) + (axis().isTime() ? 0.0 : 0.5));
}

void AllocationBandsPlottable::draw(QCPPainter *painter)
{
    if (!device() || device()->index->eventCount() == 0 || !state_->deviceLayout())
        return;
    const QRect area = clipRect();
    const double left = area.left(), right = area.right() + 1;
    const int columns = std::max(1, static_cast<int>(right - left));
    const double x0 = mKeyAxis->pixelToCoord(left), x1 = mKeyAxis->pixelToCoord(right);
    frame_ = state_->deviceLayout()->layoutColumns(axis().columnRanges(x0, x1, columns), kMaxBands, device()->pools);
    frameLeft_ = left;
    columnWidth_ = (right - left) / columns;
    auto y = [&](uint64_t bytes) { return mValueAxis->coordToPixel(static_cast<double>(bytes)); };

    drawPhases(painter, area);

    // Everything is filled as axis-aligned rectangles, one per run of columns with the same
    // extent: QPainter's polygon rasteriser took hundreds of milliseconds on the spiky outline of
    // a 12 M-event trace, rectangles take well under one.
    auto fillRuns = [&](size_t from, size_t to, const auto &extentOf, const QColor &color, Qt::BrushStyle style = Qt::SolidPattern) {
        const QBrush brush(color.toRgb(), style); // converted once, not per rectangle
        size_t c = from;
        while (c < to) {
            const auto [lo, hi] = extentOf(c);
            if (hi <= lo) {
                ++c;
                continue;
            }
            size_t end = c + 1;
            while (end < to && extentOf(end) == std::make_pair(lo, hi))
                ++end;
            painter->fillRect(QRectF(QPointF(left + c * columnWidth_, y(hi)), QPointF(left + end * columnWidth_, y(lo))), brush);
            c = end;
        }
    };
    const auto count = static_cast<size_t>(columns);
    // While searching, what does not match fades toward the background, so hits side by side
    // read as separate bands, not one outlined block. The folded bands fade too: they are drawn
    // as one block, which at full strength read as a match.
    const bool searching = search_ && !search_->empty();
    const QColor background = dark_ ? QColor(30, 30, 34) : Qt::white;
    auto faded = [&](const QColor &color) {
        if (!searching)
            return color;
        return QColor::fromRgbF(0.3f * color.redF() + 0.7f * background.redF(), 0.3f * color.greenF() + 0.7f * background.greenF(),
                                0.3f * color.blueF() + 0.7f * background.blueF());
    };
    // Private pools first, at the bottom: each region is the pool's envelope, holding its folded
    // band; its allocations' bands follow with the others.
    for (const TimelinePoolRegion &region : frame_.pools) {
        fillRuns(0, count, [&](size_t c) { return std::make_pair(region.base[c], region.top[c]); }, poolEnvelopeColor(dark_));
        fillRuns(0, count, [&](size_t c) { return std::make_pair(region.base[c], region.otherTop[c]); }, faded(foldedBandColor(dark_)));
    }
    if (state_->colorMode() == ColorMode::Category && device()->categories) {
        // The folded band split by category too: each column's totals minus its drawn bands.
        std::vector<std::array<uint64_t, kCategoryCount>> folded(count);
        for (size_t c = 0; c < count; ++c)
            folded[c] = device()->categories->totalsAt(TracePoint::after(frame_.columnEvent[c]));
        for (const TimelineBand &band : frame_.bands) {
            const auto k = static_cast<size_t>(device()->categories->of(band.allocation));
            for (size_t c = band.firstColumn; c < band.endColumn(); ++c)
                folded[c][k] -= std::min(folded[c][k], band.size);
        }
        std::vector<uint64_t> base = frame_.otherBottom;
        for (int k = 0; k < kCategoryCount; ++k) {
            fillRuns(0, count, [&](size_t c) {
                const uint64_t top = std::min(base[c] + folded[c][static_cast<size_t>(k)], frame_.otherTop[c]);
                return std::make_pair(std::min(base[c], top), top);
            }, faded(categoryColor(k).lighter(125)));
            for (size_t c = 0; c < count; ++c)
                base[c] = std::min(base[c] + folded[c][static_cast<size_t>(k)], frame_.otherTop[c]);
        }
    } else {
        fillRuns(0, count, [&](size_t c) { return std::make_pair(frame_.otherBottom[c], frame_.otherTop[c]); }, faded(foldedBandColor(dark_)));
    }
    // Ghost blocks, alive before the first entry, are hatched: their birth is not in the trace.
    // So is the folded band's part that they make up.
    const QColor ghostHatch = dark_ ? QColor(0, 0, 0, 110) : QColor(255, 255, 255, 150);
    fillRuns(0, count, [&](size_t c) { return std::make_pair(frame_.otherBottom[c], frame_.otherGhostTop[c]); }, ghostHatch, Qt::BDiagPattern);
    const TimelineBand *selectedBand = nullptr;
    for (const TimelineBand &band : frame_.bands) {
        const auto extent = [&](size_t c) { return std::make_pair(band.bottomAt(c), band.bottomAt(c) + band.size); };
        QColor color = allocationColor(*device(), band.allocation, state_->colorMode());
        if (searching && !search_->matches(band.allocation))
            color = faded(color);
        fillRuns(band.firstColumn, band.endColumn(), extent, color);
        if (device()->index->allocation(band.allocation).fromBeforeTrace())
            fillRuns(band.firstColumn, band.endColumn(), extent, ghostHatch, Qt::BDiagPattern);
        if (band.allocation == state_->selectedAllocation())
            selectedBand = &band;
    }
    drawOutlines(painter, left, searching, selectedBand);
    drawReserved(painter, left, right);
    drawPrivatePools(painter, left, right);
    drawLabels(painter, area);
    drawGaps(painter, area);
    drawMarkers(painter);
}

// Search hits are outlined, as MemoryViz does, and so is the selected allocation.
void AllocationBandsPlottable::drawOutlines(QCPPainter *painter, double left, bool searching, const TimelineBand *selectedBand)
{
    searchHits_ = 0;
    if (searching) {
        painter->setPen(QPen(dark_ ? QColor(255, 80, 200) : QColor(230, 0, 120), 2.5));
        painter->setBrush(Qt::NoBrush);
        for (const TimelineBand &band : frame_.bands) {
            if (band.bottom.empty() || !search_->matches(band.allocation))
                continue;
            ++searchHits_;
            painter->drawPolygon(bandOutline(band, left));
        }
    }
    if (selectedBand) {
        painter->setPen(QPen(dark_ ? Qt::white : Qt::black, 2));
        painter->setBrush(Qt::NoBrush);
        painter->drawPolygon(bandOutline(*selectedBand, left));
    }
}

// Reserved bytes, a step line with a point only where the value changes. The pen is one pixel
// wide: wider dashed pens go through QPainter's path stroker and scan converter, which took a
// third of a frame on a long run; one-pixel pens are drawn directly.
void AllocationBandsPlottable::drawReserved(QCPPainter *painter, double left, double right)
{
    QPolygonF reserved;
    for (size_t c = 0; c < frame_.reserved.size(); ++c) {
        const double level = mValueAxis->coordToPixel(static_cast<double>(frame_.reserved[c]));
        if (reserved.isEmpty() || reserved.last().y() != level) {
            if (!reserved.isEmpty())
                reserved << QPointF(left + c * columnWidth_, reserved.last().y());
            reserved << QPointF(left + c * columnWidth_, level);
        }
    }
    if (!reserved.isEmpty())
        reserved << QPointF(right, reserved.last().y());
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(dark_ ? QColor(255, 120, 120) : QColor(200, 30, 30), 1, Qt::DashLine));
    painter->drawPolyline(reserved);
}

// Markers: the peak and every OOM, and the event cursor; the user's notes over everything.
void AllocationBandsPlottable::drawMarkers(QCPPainter *painter)
{
    const DeviceSummary &s = device()->summary;
    int row = 0;
    markerLabels_.clear();
    if (s.peakIndex)
        drawMarker(painter, *s.peakIndex, tr("peak %1").arg(bytesText(s.peakActiveBytes)),
                   dark_ ? QColor(255, 210, 80) : QColor(160, 100, 0), row++);
    for (const OomDiagnosis &o : s.ooms)
        drawMarker(painter, o.event, tr("OOM: %1 requested").arg(bytesText(o.requested)), QColor(220, 40, 40), row++);
    if (const std::optional<EventId> e = state_->selectedEvent())
        drawMarker(painter, *e, QString(), dark_ ? QColor(120, 200, 255) : QColor(0, 90, 200), 0);
    if (notes_) {
        painter->setClipRect(clipRect());
        paintNotes(*painter, notes_->displayItems(), *this, notes_->selected(), dark_);
    }
}

QPointF AllocationBandsPlottable::anchorPixel(double eventX, double bytes) const
{
    const auto n = device() ? device()->index->eventCount() : 0;
    const EventId e(static_cast<uint32_t>(std::clamp(eventX, 0.0, n ? double(n - 1) : 0.0)));
    return {mKeyAxis->coordToPixel(axis().xOfEvent(e) + (axis().isTime() ? 0.0 : 0.5)), mValueAxis->coordToPixel(bytes)};
}

std::optional<QPointF> AllocationBandsPlottable::headPixel(const Note &a) const
{
    if (!device() || !std::isfinite(a.x) || !std::isfinite(a.y))
        return std::nullopt;
    return anchorPixel(a.x, a.y);
}

std::optional<QPointF> AllocationBandsPlottable::tailPixel(const Note &a) const
{
    if (!device() || !std::isfinite(a.x2) || !std::isfinite(a.y2))
        return std::nullopt;
    return anchorPixel(a.x2, a.y2);
}

bool AllocationBandsPlottable::pin(double &x, double &y, const QPointF &pixel) const
{
    if (!device() || device()->index->eventCount() == 0)
        return false;
    x = axis().eventAt(mKeyAxis->pixelToCoord(pixel.x())).index();
    y = std::max(0.0, mValueAxis->pixelToCoord(pixel.y()));
    return true;
}

bool AllocationBandsPlottable::pinHead(Note &a, const QPointF &pixel) const
{
    return pin(a.x, a.y, pixel);
}

bool AllocationBandsPlottable::pinTail(Note &a, const QPointF &pixel) const
{
    return pin(a.x2, a.y2, pixel);
}

QRectF AllocationBandsPlottable::noteArea() const
{
    return clipRect();
}

void AllocationBandsPlottable::refreshNotes()
{
    mParentPlot->replot(QCustomPlot::rpQueuedReplot);
}

void AllocationBandsPlottable::drawMarker(QCPPainter *painter, EventId event, const QString &label, const QColor &color, int row)
{
    const double x = pixelOfEvent(event);
    const QRect area = clipRect();
    if (x < area.left() || x > area.right() + 1) // the last event's column ends at right() + 1
        return;
    painter->setPen(QPen(color, 1.5, label.isEmpty() ? Qt::SolidLine : Qt::DashDotLine));
    painter->drawLine(QLineF(x, area.top(), x, area.bottom()));
    if (label.isEmpty())
        return;
    const QFontMetrics fm(painter->font());
    const int w = fm.horizontalAdvance(label) + 8, h = fm.height() + 2;
    double lx = x + 4;
    if (lx + w > area.right())
        lx = x - 4 - w;
    const QRectF box(lx, area.top() + 22 + row * (h + 2), w, h);
    markerLabels_.append(box);
    painter->setBrush(dark_ ? QColor(30, 30, 34, 220) : QColor(255, 255, 255, 220));
    painter->setPen(QPen(color, 1));
    painter->drawRect(box);
    painter->setPen(dark_ ? Qt::white : Qt::black);
    painter->drawText(box, Qt::AlignCenter, label);
}

void AllocationBandsPlottable::drawGaps(QCPPainter *painter, const QRect &area)
{
    drawGapBreaks(*painter, area, state_->document()->snapshot->gaps, device()->index->device(),
                  [this](int64_t t) { return mKeyAxis->coordToPixel(axis().xOfTime(t)); }, dark_);
}


QPolygonF AllocationBandsPlottable::bandOutline(const TimelineBand &band, double left) const
{
    // One closed outline: along the top edge, back along the bottom, a corner only where the
    // band steps, so wide bands cost a few points, not one rectangle per column.
    auto y = [&](uint64_t bytes) { return mValueAxis->coordToPixel(static_cast<double>(bytes)); };
    auto steps = [&](size_t c) { return c == band.firstColumn || band.bottomAt(c) != band.bottomAt(c - 1); };
    QPolygonF outline;
    for (size_t c = band.firstColumn; c < band.endColumn(); ++c) {
        const double top = y(band.bottomAt(c) + band.size);
        if (steps(c))
            outline << QPointF(left + c * columnWidth_, top);
        if (c + 1 == band.endColumn() || steps(c + 1))
            outline << QPointF(left + (c + 1) * columnWidth_, top);
    }
    for (size_t c = band.endColumn(); c-- > band.firstColumn;) {
        const double bottom = y(band.bottomAt(c));
        if (c + 1 == band.endColumn() || steps(c + 1))
            outline << QPointF(left + (c + 1) * columnWidth_, bottom);
        if (steps(c))
            outline << QPointF(left + c * columnWidth_, bottom);
    }
    return outline;
}

void AllocationBandsPlottable::drawPrivatePools(QCPPainter *painter, double left, double right)
{
    // Each private pool's region gets the outline of its envelope (the high-water mark of what it
    // reserved or held) and a label, as MemoryViz's "incl. Private Pools" tab draws them.
    const size_t count = frame_.columnEvent.size();
    auto y = [&](uint64_t bytes) { return mValueAxis->coordToPixel(static_cast<double>(bytes)); };
    const QColor ink = dark_ ? QColor(230, 230, 230) : Qt::black;
    std::vector<double> wanted;
    std::vector<QString> labels;
    for (const TimelinePoolRegion &region : frame_.pools) {
        QPolygonF outline;
        for (size_t c = 0; c < count; ++c)
            outline << QPointF(left + c * columnWidth_, y(region.top[c])) << QPointF(left + (c + 1) * columnWidth_, y(region.top[c]));
        painter->setPen(QPen(ink, 1));
        painter->setBrush(Qt::NoBrush);
        painter->drawPolyline(outline);
        const PoolUsage &pool = device()->pools[region.pool];
        const auto &[p0, p1] = state_->document()->snapshot->poolId(pool.pool);
        const QString label = tr("private pool (%1, %2) · stream %3 · reserved %4").arg(p0).arg(p1).arg(pool.stream).arg(bytesText(pool.reserved.last()));
        wanted.push_back((count ? y(region.top[count - 1]) : 0) + 2);
        labels.push_back(label);
    }
    painter->setPen(ink);
    const std::vector<double> tops = stackedLabelTops(wanted, 15);
    for (size_t i = 0; i < labels.size(); ++i)
        painter->drawText(QRectF(right - 420, tops[i], 414, 15), Qt::AlignRight | Qt::AlignVCenter, labels[i]);
}

void AllocationBandsPlottable::drawLabels(QCPPainter *painter, const QRect &area)
{
    // Annotated allocations: a tick on the bottom edge at each annotate entry, with its label
    // where the previous one leaves room.
    const DeviceIndex &index = *device()->index;
    if (!index.hasAnnotations() || frame_.columnEvent.empty())
        return;
    const EventTable &ev = index.events();
    const Snapshot &snapshot = *state_->document()->snapshot;
    const QColor color = dark_ ? QColor(255, 170, 255) : QColor(150, 0, 150);
    painter->setPen(color);
    painter->setBrush(color);
    double freeFrom = -1e9;
    const EventId first = frame_.columnEvent.front();
    const auto events = index.annotateEvents();
    for (auto it = std::lower_bound(events.begin(), events.end(), first); it != events.end(); ++it) {
        const EventId e = *it;
        if (e > frame_.columnEvent.back())
            break;
        const double x = pixelOfEvent(e);
        if (x < 0)
            continue;
        const double bottom = area.bottom();
        painter->drawPolygon(QPolygonF({QPointF(x, bottom - 7), QPointF(x - 4, bottom), QPointF(x + 4, bottom)}));
        if (x < freeFrom)
            continue;
        const QString text = snapshotText(snapshot, EventTable::sparseValueAt(ev.userMetadata, e)).left(40);
        const double width = painter->fontMetrics().horizontalAdvance(text);
        painter->drawText(QPointF(x + 5, bottom - 9), text);
        freeFrom = x + width + 12;
    }
}

void AllocationBandsPlottable::drawLegendIcon(QCPPainter *painter, const QRectF &rect) const
{
    painter->setPen(Qt::NoPen);
    const double w = rect.width() / 3;
    painter->setBrush(bandColor(1));
    painter->drawRect(QRectF(rect.left(), rect.top(), w, rect.height()));
    painter->setBrush(bandColor(2));
    painter->drawRect(QRectF(rect.left() + w, rect.top(), w, rect.height()));
    painter->setBrush(foldedBandColor(dark_));
    painter->drawRect(QRectF(rect.left() + 2 * w, rect.top(), w, rect.height()));
}

} // namespace memlens
