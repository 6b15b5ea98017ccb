#pragma once
// Mouse and keyboard editing of one view's notes, installed as an event filter on the
// view's surface so the view's own clicks, drags and tooltips keep working elsewhere:
//   - click a note to select it; drag it (or a handle) to move it, one undo step per drag;
//   - double-click (or F2) to edit its text, Delete to remove it, Esc to cancel;
//   - with a tool set (note, arrow, box), click or drag on the view to draw one;
//   - the context menu adds or edits notes at the pointer.
#include "notes/NotePainter.h"

#include <functional>
#include <QObject>
#include <QPointer>
#include <QWidget>

class QKeyEvent;
class QMouseEvent;

namespace memlens {

class ViewState;

// The text dialog for a note: multi-line, Ctrl+Enter accepts. False: cancelled.
bool askNoteText(QWidget *parent, const QString &title, QString &text);

class NoteEditor : public QObject {
    Q_OBJECT

public:
    NoteEditor(QWidget *surface, NotePlacement *placement, NoteSet *set, ViewState *state);

    // With a kind (none: no tool), the next click or drag on the surface draws one.
    void setTool(std::optional<NoteKind> kind);
    std::optional<NoteKind> tool() const { return tool_; }
    // Asks for a note's text; false: cancelled. Tests replace the dialog.
    using TextPrompt = std::function<bool(QWidget *parent, const QString &title, QString &text)>;
    void setTextPrompt(TextPrompt prompt) { prompt_ = std::move(prompt); }

    // Draws a note of `kind` from `press` to `release` (surface pixels) after asking
    // for its text. Returns false if nothing can be pinned there or the text was cancelled.
    bool create(NoteKind kind, const QPointF &press, const QPointF &release);
    bool editText(int index);
    // `a` with the given part dragged by `delta` pixels (what a mouse drag does).
    Note moved(const Note &a, NotePart part, const QPointF &delta) const;

signals:
    void toolFinished();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    bool mousePressed(QMouseEvent *me);
    bool mouseMoved(QMouseEvent *me);
    bool mouseReleased(QMouseEvent *me);
    bool keyPressed(QKeyEvent *ke);
    NoteHit hitAt(const QPointF &pixel) const;
    void showMenu(const QPoint &pos, const QPoint &globalPos);
    bool selectedIsHere() const;

    QPointer<QWidget> surface_;
    NotePlacement *placement_;
    NoteSet *set_;
    ViewState *state_;
    TextPrompt prompt_;
    std::optional<NoteKind> tool_;
    // A drag in progress: of an existing note (index >= 0) or of a new one being drawn.
    bool pressed_ = false;
    QPointF pressAt_;
    NoteHit drag_;
    Note original_;
};

} // namespace memlens
