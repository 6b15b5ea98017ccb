#pragma once
// How one view pins notes to its data: from a note's data coordinates to pixels of
// the view's surface and back. The timeline, the segment map and the flame graph implement it;
// NotePainter draws and NoteEditor edits through it, so the three behave alike.
#include "notes/NoteSet.h"

#include <cmath>
#include <optional>
#include <QList>
#include <QPointF>
#include <QRectF>

namespace memlens {

class NotePlacement {
public:
    virtual ~NotePlacement() = default;

    virtual NoteView noteView() const = 0;
    // Where the anchor / the second point (arrow tail, box corner) is drawn now; nothing when the
    // data it is pinned to is not on screen (a segment freed at this event, a frame not shown).
    virtual std::optional<QPointF> headPixel(const Note &a) const = 0;
    virtual std::optional<QPointF> tailPixel(const Note &a) const = 0;
    // Pin the anchor / second point to the data under a pixel; false where nothing can be pinned.
    virtual bool pinHead(Note &a, const QPointF &pixel) const = 0;
    virtual bool pinTail(Note &a, const QPointF &pixel) const = 0;
    // The outline of a box note; by default the rectangle between its two points.
    virtual std::optional<QRectF> boxRect(const Note &a) const
    {
        const auto h = headPixel(a), t = tailPixel(a);
        if (!h || !t)
            return std::nullopt;
        return QRectF(*h, *t).normalized();
    }
    // Labels are kept inside this rectangle, and off the view's own labels (markers).
    virtual QRectF noteArea() const = 0;
    virtual QList<QRectF> noteObstacles() const { return {}; }
    // Ask the view to draw again (a QCustomPlot needs a replot, a widget an update).
    virtual void refreshNotes() = 0;

protected:
    // For views whose arrows have a free tail: (x2, y2) is the tail's pixel offset from the head.
    std::optional<QPointF> offsetTail(const Note &a) const
    {
        const auto head = headPixel(a);
        if (!head || !std::isfinite(a.x2) || !std::isfinite(a.y2))
            return std::nullopt;
        return *head + QPointF(a.x2, a.y2);
    }
    bool pinOffsetTail(Note &a, const QPointF &pixel) const
    {
        const auto head = headPixel(a);
        if (!head)
            return false;
        a.x2 = pixel.x() - head->x();
        a.y2 = pixel.y() - head->y();
        return true;
    }
};

} // namespace memlens
