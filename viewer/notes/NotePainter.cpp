#include "notes/NotePainter.h"

#include <QPainter>
#include <QPainterPath>

namespace memlens {

namespace {
constexpr int kMaxLabelWidth = 360;
constexpr double kHandle = 4; // half the side of a drag handle
constexpr double kGrab = 5;   // how near a line must be clicked

double distanceToSegment(const QPointF &p, const QPointF &a, const QPointF &b)
{
    const QPointF d = b - a;
    const double len2 = QPointF::dotProduct(d, d);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, d) / len2, 0.0, 1.0) : 0.0;
    const QPointF q = a + t * d - p;
    return std::sqrt(QPointF::dotProduct(q, q));
}

bool nearOutline(const QRectF &r, const QPointF &p)
{
    return r.adjusted(-kGrab, -kGrab, kGrab, kGrab).contains(p) && !r.adjusted(kGrab, kGrab, -kGrab, -kGrab).contains(p);
}

// Moves `label` down (then, if that leaves the area, up) until it overlaps nothing taken.
QRectF placeLabel(const QRectF &label, const QList<QRectF> &taken, const QRectF &area)
{
    auto collision = [&](const QRectF &r) -> const QRectF * {
        for (const QRectF &t : taken) {
            if (t.intersects(r))
                return &t;
        }
        return nullptr;
    };
    for (int direction : {1, -1}) {
        QRectF r = label;
        for (int step = 0; step < 40; ++step) {
            const QRectF *hit = collision(r);
            if (!hit)
                return r;
            if (direction > 0)
                r.moveTop(hit->bottom() + 3);
            else
                r.moveBottom(hit->top() - 3);
            if (r.bottom() > area.bottom() || r.top() < area.top())
                break;
        }
    }
    return label; // crowded: overlapping beats disappearing
}

NoteShape noteShape(const Note &a, const NotePlacement &placement, const QFontMetrics &fm)
{
    NoteShape s;
    const auto head = placement.headPixel(a);
    if (!head)
        return s;
    s.head = *head;
    s.visible = true;
    s.labelAt = s.head;
    if (a.kind == NoteKind::Arrow || a.kind == NoteKind::Box) {
        const auto tail = placement.tailPixel(a);
        if (!tail)
            return {};
        s.tail = *tail;
        s.hasTail = true;
    }
    if (a.kind == NoteKind::Arrow) {
        s.labelAt = s.tail; // the text sits at the tail, so the head stays visible
    } else if (a.kind == NoteKind::Box) {
        const auto box = placement.boxRect(a);
        if (!box)
            return {};
        s.box = *box;
        s.labelAt = s.box.topLeft();
    }
    if (a.text.isEmpty())
        return s;
    // Above and to the right of its point, flipped and clamped to stay inside the view.
    const QRect text = fm.boundingRect(QRect(0, 0, kMaxLabelWidth, 2000), Qt::TextWordWrap, a.text);
    const QRectF area = placement.noteArea();
    QRectF label(s.labelAt + QPointF(12, -text.height() - 22), QSizeF(text.width() + 12, text.height() + 8));
    if (a.kind == NoteKind::Box)
        label.moveTopLeft(s.box.topLeft() + QPointF(0, -label.height() - 4));
    if (label.right() > area.right())
        label.moveRight(s.labelAt.x() - 12);
    if (label.top() < area.top())
        label.moveTop(a.kind == NoteKind::Box ? s.box.top() + 4 : s.labelAt.y() + 14);
    // Anchors near or beyond an edge still get their whole label inside the view.
    if (label.right() > area.right())
        label.moveRight(area.right());
    if (label.left() < area.left())
        label.moveLeft(area.left());
    if (label.bottom() > area.bottom())
        label.moveBottom(area.bottom());
    if (label.top() < area.top())
        label.moveTop(area.top());
    s.label = label;
    return s;
}

} // namespace

QList<NoteShape> noteShapes(const QList<Note> &items, const NotePlacement &placement, const QFontMetrics &fm)
{
    QList<NoteShape> shapes(items.size());
    QList<QRectF> taken = placement.noteObstacles();
    const NoteView view = placement.noteView();
    const QRectF area = placement.noteArea();
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (items[i].view == view)
            shapes[i] = noteShape(items[i], placement, fm);
        if (shapes[i].visible) // no label hides another note's point
            taken.append(QRectF(shapes[i].head - QPointF(6, 6), QSizeF(12, 12)));
    }
    for (qsizetype i = 0; i < items.size(); ++i) {
        NoteShape &s = shapes[i];
        if (s.visible && !s.label.isEmpty()) {
            s.label = placeLabel(s.label, taken, area);
            taken.append(s.label.adjusted(-2, -2, 2, 2));
        }
    }
    return shapes;
}

void paintNotes(QPainter &p, const QList<Note> &items, const NotePlacement &placement, int selected, bool dark)
{
    const QColor ink = dark ? QColor(255, 235, 120) : QColor(20, 20, 20);
    const QColor paper = dark ? QColor(40, 40, 46, 235) : QColor(255, 252, 220, 240);
    QColor halo = paper;
    halo.setAlpha(200);
    const QColor accent = dark ? QColor(120, 200, 255) : QColor(0, 90, 200);
    const QFontMetrics fm(p.font());
    const QList<NoteShape> shapes = noteShapes(items, placement, fm);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    for (qsizetype i = 0; i < items.size(); ++i) {
        const Note &a = items[i];
        const NoteShape &s = shapes[i];
        if (!s.visible)
            continue;
        const bool isSelected = i == selected;
        QPainterPath lines;
        if (a.kind == NoteKind::Box) {
            lines.addRect(s.box);
        } else if (a.kind == NoteKind::Arrow) {
            lines.moveTo(s.tail);
            lines.lineTo(s.head);
            const QLineF back(s.head, s.tail);
            for (double turn : {25.0, -25.0}) {
                QLineF barb = QLineF::fromPolar(11, back.angle() + turn);
                barb.translate(s.head);
                lines.moveTo(barb.p1());
                lines.lineTo(barb.p2());
            }
        }
        if (!s.label.isEmpty()) {
            // A leader from the point to the bubble's nearest corner, so a label moved off
            // others still shows what it belongs to.
            QPointF corner;
            double best = std::numeric_limits<double>::max();
            for (const QPointF &c : {s.label.topLeft(), s.label.topRight(), s.label.bottomLeft(), s.label.bottomRight()}) {
                const double d = QLineF(s.labelAt, c).length();
                if (d < best) {
                    best = d;
                    corner = c;
                }
            }
            if (best > 6 && !s.label.contains(s.labelAt)) {
                lines.moveTo(s.labelAt);
                lines.lineTo(corner);
            }
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(halo, 4.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.drawPath(lines);
        p.setPen(QPen(isSelected ? accent : ink, isSelected ? 2.5 : 1.6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.drawPath(lines);
        if (a.kind == NoteKind::Note) {
            p.setPen(QPen(halo, 1.5));
            p.setBrush(isSelected ? accent : ink);
            p.drawEllipse(s.head, 3.5, 3.5);
        }
        if (!s.label.isEmpty()) {
            p.setPen(QPen(isSelected ? accent : ink, isSelected ? 2 : 1, isSelected ? Qt::DashLine : Qt::SolidLine));
            p.setBrush(paper);
            p.drawRoundedRect(s.label, 4, 4);
            p.setPen(ink);
            p.drawText(s.label.adjusted(6, 4, -6, -4), Qt::TextWordWrap, a.text);
        }
        if (isSelected) {
            // Handles show what can be dragged.
            p.setPen(QPen(halo, 1));
            p.setBrush(accent);
            p.drawRect(QRectF(s.head - QPointF(kHandle, kHandle), QSizeF(2 * kHandle, 2 * kHandle)));
            if (s.hasTail)
                p.drawRect(QRectF(s.tail - QPointF(kHandle, kHandle), QSizeF(2 * kHandle, 2 * kHandle)));
        }
    }
    p.restore();
}

NoteHit hitNote(const QList<Note> &items, const NotePlacement &placement, const QFontMetrics &fm,
                            const QPointF &pixel, int selected)
{
    const QList<NoteShape> shapes = noteShapes(items, placement, fm);
    auto near = [&](const QPointF &point) {
        return std::abs(point.x() - pixel.x()) <= kHandle + 2 && std::abs(point.y() - pixel.y()) <= kHandle + 2;
    };
    if (selected >= 0 && selected < items.size()) {
        const NoteShape &s = shapes[selected];
        if (s.visible && near(s.head))
            return {selected, NotePart::Head};
        if (s.visible && s.hasTail && near(s.tail))
            return {selected, NotePart::Tail};
    }
    for (auto i = items.size() - 1; i >= 0; --i) {
        const Note &a = items[i];
        const NoteShape &s = shapes[i];
        if (!s.visible)
            continue;
        if (s.label.contains(pixel))
            return {static_cast<int>(i), a.kind == NoteKind::Arrow ? NotePart::Tail : a.kind == NoteKind::Box ? NotePart::Body : NotePart::Label};
        if (near(s.head))
            return {static_cast<int>(i), a.kind == NoteKind::Box ? NotePart::Head : a.kind == NoteKind::Arrow ? NotePart::Head : NotePart::Label};
        if (s.hasTail && near(s.tail))
            return {static_cast<int>(i), NotePart::Tail};
        if (a.kind == NoteKind::Arrow && distanceToSegment(pixel, s.tail, s.head) <= kGrab)
            return {static_cast<int>(i), NotePart::Body};
        if (a.kind == NoteKind::Box && nearOutline(s.box, pixel))
            return {static_cast<int>(i), NotePart::Body};
    }
    return {};
}

} // namespace memlens
