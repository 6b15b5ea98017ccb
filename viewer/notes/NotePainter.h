#pragma once
// Draws a view's notes (notes, arrows, boxes) and tells what a pixel hits, from one
// geometry so that what is clicked is what is drawn. Lines get a halo in the paper colour so
// they stay visible on any band or frame colour, in light and dark themes.
#include "notes/NotePlacement.h"

#include <QFontMetrics>
#include <QList>

class QPainter;

namespace memlens {

struct NoteShape {
    bool visible = false;
    QPointF head, tail;
    bool hasTail = false;
    QRectF box;    // kind "box": the outline
    QRectF label;  // the text bubble (empty without text)
    QPointF labelAt; // where the bubble's leader line starts
};

// Shapes of all items (invisible for other views' items). Labels are laid out in order, each
// moved off the view's obstacles and the labels before it, so none hides another.
QList<NoteShape> noteShapes(const QList<Note> &items, const NotePlacement &placement, const QFontMetrics &fm);

void paintNotes(QPainter &painter, const QList<Note> &items, const NotePlacement &placement,
                      int selected, bool dark);

enum class NotePart { None, Label, Head, Tail, Body };
struct NoteHit {
    int index = -1;
    NotePart part = NotePart::None;
};
// The topmost note of this view under `pixel`; the selected one's handles win.
NoteHit hitNote(const QList<Note> &items, const NotePlacement &placement, const QFontMetrics &fm,
                            const QPointF &pixel, int selected);

} // namespace memlens
