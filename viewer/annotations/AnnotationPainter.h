#pragma once
// Draws a view's annotations (notes, arrows, boxes) and tells what a pixel hits, from one
// geometry so that what is clicked is what is drawn. Lines get a halo in the paper colour so
// they stay visible on any band or frame colour, in light and dark themes.
#include "annotations/AnnotationPlacement.h"

#include <QFontMetrics>
#include <QList>

class QPainter;

namespace memlens {

struct AnnotationShape {
    bool visible = false;
    QPointF head, tail;
    bool hasTail = false;
    QRectF box;    // kind "box": the outline
    QRectF label;  // the text bubble (empty without text)
    QPointF labelAt; // where the bubble's leader line starts
};

// Shapes of all items (invisible for other views' items). Labels are laid out in order, each
// moved off the view's obstacles and the labels before it, so none hides another.
QList<AnnotationShape> annotationShapes(const QList<Annotation> &items, const AnnotationPlacement &placement, const QFontMetrics &fm);

void paintAnnotations(QPainter &painter, const QList<Annotation> &items, const AnnotationPlacement &placement,
                      int selected, bool dark);

enum class AnnotationPart { None, Label, Head, Tail, Body };
struct AnnotationHit {
    int index = -1;
    AnnotationPart part = AnnotationPart::None;
};
// The topmost annotation of this view under `pixel`; the selected one's handles win.
AnnotationHit hitAnnotation(const QList<Annotation> &items, const AnnotationPlacement &placement, const QFontMetrics &fm,
                            const QPointF &pixel, int selected);

} // namespace memlens
