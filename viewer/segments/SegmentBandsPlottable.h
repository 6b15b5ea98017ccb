#pragma once
// QCustomPlot plottable that draws a SegmentTimelineFrame: each segment life a band over its
// columns, its used bytes in the band's full colour and the rest of it pale (the free space
// the allocator holds), x in events, y in bytes stacked.
#include "views/SegmentTimeline.h"

#include <qcustomplot.h>

namespace memlens {

class SegmentBandsPlottable : public QCPAbstractPlottable {
    Q_OBJECT

public:
    SegmentBandsPlottable(QCPAxis *keyAxis, QCPAxis *valueAxis);

    // The frame and the events its columns start at (one more than the columns: the end).
    void setFrame(SegmentTimelineFrame frame, std::vector<double> columnX);
    const SegmentTimelineFrame &frame() const { return frame_; }
    void setDark(bool dark) { dark_ = dark; }
    // Without occupancy (a replay's predicted segments) bands are drawn in one half-strong
    // colour, neither used nor free.
    void setOccupancyKnown(bool known) { occupancyKnown_ = known; }
    // The band under a pixel, and the column there; none when nothing is.
    const SegmentBand *bandAtPixel(const QPointF &pixel, size_t *column = nullptr) const;

    double selectTest(const QPointF &pos, bool onlySelectable, QVariant *details = nullptr) const override;
    static constexpr double kMinEdgedPixels = 4;

    QCPRange getKeyRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange &inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter *painter) override;
    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override;

private:
    QPolygonF outline(const SegmentBand &band, bool usedOnly) const;

    SegmentTimelineFrame frame_;
    std::vector<double> columnX_;
    bool dark_ = false;
    bool occupancyKnown_ = true;
};

} // namespace memlens
