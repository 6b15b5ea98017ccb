#pragma once
// Mouse and keyboard editing of one view's annotations, installed as an event filter on the
// view's surface so the view's own clicks, drags and tooltips keep working elsewhere:
//   - click an annotation to select it; drag it (or a handle) to move it, one undo step per drag;
//   - double-click (or F2) to edit its text, Delete to remove it, Esc to cancel;
//   - with a tool set (note, arrow, box), click or drag on the view to draw one;
//   - the context menu adds or edits annotations at the pointer.
#include "annotations/AnnotationPainter.h"

#include <QObject>
#include <QPointer>
#include <QWidget>
#include <functional>

namespace memlens {

class ViewState;

// The text dialog for an annotation: multi-line, Ctrl+Enter accepts. False: cancelled.
bool askAnnotationText(QWidget *parent, const QString &title, QString &text);

class AnnotationEditor : public QObject {
    Q_OBJECT

public:
    AnnotationEditor(QWidget *surface, AnnotationPlacement *placement, AnnotationSet *set, ViewState *state);

    // "" (none), "note", "arrow" or "box": the next click or drag on the surface draws one.
    void setTool(const QString &kind);
    QString tool() const { return tool_; }
    // Asks for an annotation's text; false: cancelled. Tests replace the dialog.
    using TextPrompt = std::function<bool(QWidget *parent, const QString &title, QString &text)>;
    void setTextPrompt(TextPrompt prompt) { prompt_ = std::move(prompt); }

    // Draws an annotation of `kind` from `press` to `release` (surface pixels) after asking
    // for its text. Returns false if nothing can be pinned there or the text was cancelled.
    bool create(const QString &kind, const QPointF &press, const QPointF &release);
    bool editText(int index);
    // `a` with the given part dragged by `delta` pixels (what a mouse drag does).
    Annotation moved(const Annotation &a, AnnotationPart part, const QPointF &delta) const;

signals:
    void toolFinished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    AnnotationHit hitAt(const QPointF &pixel) const;
    void showMenu(const QPoint &pos, const QPoint &globalPos);
    bool selectedIsHere() const;

    QPointer<QWidget> surface_;
    AnnotationPlacement *placement_;
    AnnotationSet *set_;
    ViewState *state_;
    TextPrompt prompt_;
    QString tool_;
    // A drag in progress: of an existing annotation (index >= 0) or of a new one being drawn.
    bool pressed_ = false;
    QPointF pressAt_;
    AnnotationHit drag_;
    Annotation original_;
};

} // namespace memlens
