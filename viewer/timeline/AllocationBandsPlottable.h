#pragma once
// QCustomPlot plottable that draws the allocation timeline of one device: the stacked
// allocation bands from TimelineLayout (recomputed for the visible range and pixel width at
// each repaint), the reserved-bytes line, record_function phase bands, and peak/OOM markers.
// What it shows (device, axis, colours, cursor, selection) it reads from the ViewState.
#include "views/AllocationSearch.h"
#include "views/TimelineLayout.h"
#include "notes/NotePlacement.h"

#include <memory>
#include <qcustomplot.h>

namespace memlens {

class NoteSet;
class TimelineAxis;
class ViewState;
struct DeviceData;

class AllocationBandsPlottable : public QCPAbstractPlottable, public NotePlacement {
    Q_OBJECT

public:
    AllocationBandsPlottable(const ViewState *state, QCPAxis *keyAxis, QCPAxis *valueAxis);

    void setDark(bool dark) { dark_ = dark; }
    // Bands matching the search are outlined; null: no search.
    void setSearch(std::shared_ptr<const AllocationSearch> search) { search_ = std::move(search); }
    const AllocationSearch *search() const { return search_.get(); }
    // How many of the last frame's bands matched the search.
    size_t searchHits() const { return searchHits_; }
    void setNotes(const NoteSet *notes) { notes_ = notes; }
    // Pixel position of a data point (event index, bytes) in the current axes.
    QPointF anchorPixel(double eventX, double bytes) const;

    // Timeline notes: both points are (event, bytes).
    NoteView noteView() const override { return NoteView::Timeline; }
    std::optional<QPointF> headPixel(const Note &a) const override;
    std::optional<QPointF> tailPixel(const Note &a) const override;
    bool pinHead(Note &a, const QPointF &pixel) const override;
    bool pinTail(Note &a, const QPointF &pixel) const override;
    QRectF noteArea() const override;
    QList<QRectF> noteObstacles() const override { return markerLabels_; }
    void refreshNotes() override;

    // What lies under a pixel position of the last drawn frame: an allocation id, or
    // none (folded band, or nothing). `event` receives the column's sample event.
    AllocationId allocationAtPixel(const QPointF &pixel, EventId *event = nullptr) const;
    const TimelineFrame &lastFrame() const { return frame_; }
    // The column of the last drawn frame under pixel x (-1: none).
    long columnAtPixel(double x) const;
    // Pixel x of the centre of the column showing `event`, in the last drawn frame (-1: none).
    double pixelOfEvent(EventId event) const;

    double selectTest(const QPointF &pos, bool onlySelectable, QVariant *details = nullptr) const override;
    QCPRange getKeyRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool &foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange &inKeyRange = QCPRange()) const override;

    static constexpr size_t kMaxBands = 1000;
    // Below this many pixels per step the phase strip shows steps instead of phases.
    static constexpr double kMinPixelsPerStepForPhases = 60;

protected:
    void draw(QCPPainter *painter) override;
    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override;

private:
    void drawPhases(QCPPainter *painter, const QRect &area);
    void drawPrivatePools(QCPPainter *painter, double left, double right);
    QPolygonF bandOutline(const TimelineBand &band, double left) const;
    void drawLabels(QCPPainter *painter, const QRect &area);
    void drawGaps(QCPPainter *painter, const QRect &area);
    void drawOutlines(QCPPainter *painter, double left, bool searching, const TimelineBand *selectedBand);
    void drawReserved(QCPPainter *painter, double left, double right);
    void drawMarkers(QCPPainter *painter);
    void drawMarker(QCPPainter *painter, EventId event, const QString &label, const QColor &color, int row);
    bool pin(double &x, double &y, const QPointF &pixel) const;

    const DeviceData *device() const;
    const TimelineAxis &axis() const;

    const ViewState *state_;
    TimelineFrame frame_;
    double frameLeft_ = 0;   // pixel x of column 0
    double columnWidth_ = 1; // pixels per column
    bool dark_ = false;
    const NoteSet *notes_ = nullptr;
    QList<QRectF> markerLabels_; // peak / OOM labels of the last frame: notes keep off them
    std::shared_ptr<const AllocationSearch> search_;
    size_t searchHits_ = 0;
};

} // namespace memlens
