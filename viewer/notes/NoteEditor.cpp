#include "notes/NoteEditor.h"

#include "state/ViewState.h"

#include <QContextMenuEvent>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QShortcut>

namespace memlens {

namespace {
constexpr double kClick = 4; // pixels a press may move and still be a click
} // namespace

bool askNoteText(QWidget *parent, const QString &title, QString &text)
{
    QInputDialog dialog(parent);
    dialog.setWindowTitle(title);
    dialog.setLabelText(QObject::tr("Text (Ctrl+Enter to accept; may be empty for arrows and boxes):"));
    dialog.setOption(QInputDialog::UsePlainTextEditForTextInput);
    dialog.setTextValue(text);
    // Enter makes a new line, so Ctrl+Enter accepts and Tab moves on to the buttons.
    if (auto *edit = dialog.findChild<QPlainTextEdit *>())
        edit->setTabChangesFocus(true);
    for (QKeySequence keys : {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)})
        QObject::connect(new QShortcut(keys, &dialog), &QShortcut::activated, &dialog, &QDialog::accept);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    text = dialog.textValue();
    return true;
}

NoteEditor::NoteEditor(QWidget *surface, NotePlacement *placement, NoteSet *set, ViewState *state)
    : QObject(surface), surface_(surface), placement_(placement), set_(set), state_(state), prompt_(askNoteText)
{
    surface->installEventFilter(this);
    if (surface->focusPolicy() == Qt::NoFocus)
        surface->setFocusPolicy(Qt::ClickFocus); // Delete and Esc reach the editor
}

void NoteEditor::setTool(std::optional<NoteKind> kind)
{
    tool_ = kind;
    if (!surface_)
        return;
    if (!kind)
        surface_->unsetCursor();
    else
        surface_->setCursor(Qt::CrossCursor);
}

NoteHit NoteEditor::hitAt(const QPointF &pixel) const
{
    return hitNote(set_->items(), *placement_, QFontMetrics(surface_->font()), pixel, set_->selected());
}

bool NoteEditor::selectedIsHere() const
{
    const int s = set_->selected();
    return s >= 0 && s < set_->items().size() && set_->items()[s].view == placement_->noteView();
}

Note NoteEditor::moved(const Note &a, NotePart part, const QPointF &delta) const
{
    Note result = a;
    const auto head = placement_->headPixel(a);
    if (!head)
        return a;
    const auto tail = a.kind == NoteKind::Note ? std::nullopt : placement_->tailPixel(a);
    switch (part) {
    case NotePart::Tail:
        if (tail)
            placement_->pinTail(result, *tail + delta);
        break;
    case NotePart::Body:
        // Both points move; views that keep the tail relative to the head get it re-pinned too.
        placement_->pinHead(result, *head + delta);
        if (tail)
            placement_->pinTail(result, *tail + delta);
        break;
    default:
        placement_->pinHead(result, *head + delta);
        if (tail)
            placement_->pinTail(result, *tail); // the other end stays where it was
        break;
    }
    return result;
}

bool NoteEditor::create(NoteKind kind, const QPointF &press, const QPointF &release)
{
    Note a;
    a.kind = kind;
    a.view = placement_->noteView();
    if (const std::optional<EventId> e = state_ ? state_->selectedEvent() : std::nullopt)
        a.event = e->index();
    const bool dragged = (release - press).manhattanLength() >= kClick;
    // An arrow is drawn from its text (the tail) to what it points at (the head); a click
    // makes one pointing at the click from up and to the left.
    const QPointF head = kind == NoteKind::Arrow ? release : press;
    QPointF tail = kind == NoteKind::Arrow ? press : release;
    if (!dragged)
        tail = kind == NoteKind::Arrow ? head + QPointF(-70, -45) : head + QPointF(90, 36);
    if (!placement_->pinHead(a, head))
        return false;
    if (kind != NoteKind::Note && !placement_->pinTail(a, tail))
        return false;
    QString text;
    const QString title = kind == NoteKind::Note ? tr("New note") : kind == NoteKind::Arrow ? tr("New arrow") : tr("New box");
    if (!prompt_(surface_, title, text))
        return false;
    if (kind == NoteKind::Note && text.trimmed().isEmpty())
        return false;
    a.text = text;
    set_->add(a);
    return true;
}

bool NoteEditor::editText(int index)
{
    if (index < 0 || index >= set_->items().size())
        return false;
    Note a = set_->items()[index];
    if (!prompt_(surface_, tr("Edit note"), a.text))
        return false;
    set_->replace(index, a, tr("Edit %1 text").arg(noteKindName(a.kind)));
    return true;
}

void NoteEditor::showMenu(const QPoint &pos, const QPoint &globalPos)
{
    const NoteHit hit = hitAt(pos);
    QMenu menu(surface_);
    if (hit.index >= 0) {
        set_->setSelected(hit.index);
        menu.addAction(tr("Edit Text…"), this, [this, i = hit.index] { editText(i); });
        menu.addAction(tr("Delete Note"), this, [this, i = hit.index] { set_->remove(i); });
        menu.addSeparator();
    }
    Note probe; // only where there is data to pin to (not between flame-graph frames)
    probe.view = placement_->noteView();
    const bool pinnable = placement_->pinHead(probe, pos);
    for (const auto &[label, kind] : {std::pair{tr("Add Note Here…"), NoteKind::Note}, std::pair{tr("Add Arrow Pointing Here…"), NoteKind::Arrow},
                                      std::pair{tr("Add Box Here…"), NoteKind::Box}})
        menu.addAction(label, this, [this, pos, kind] { create(kind, pos, pos); })->setEnabled(pinnable);
    menu.exec(globalPos);
}

bool NoteEditor::mousePressed(QMouseEvent *me)
{
    if (me->button() != Qt::LeftButton)
        return false;
    pressAt_ = me->position();
    if (tool_) {
        pressed_ = true;
        drag_ = {};
        return true;
    }
    drag_ = hitAt(pressAt_);
    if (drag_.index < 0) {
        if (selectedIsHere())
            set_->setSelected(-1);
        return false; // the view's own click, drag or pan
    }
    pressed_ = true;
    original_ = set_->items()[drag_.index];
    set_->setSelected(drag_.index);
    surface_->setFocus(Qt::MouseFocusReason);
    return true;
}

bool NoteEditor::mouseMoved(QMouseEvent *me)
{
    if (!pressed_) {
        if (!tool_)
            surface_->setCursor(hitAt(me->position()).index >= 0 ? Qt::SizeAllCursor : Qt::ArrowCursor);
        return false;
    }
    if (tool_) {
        // The shape being drawn, previewed as an extra item.
        Note a;
        a.kind = *tool_;
        a.view = placement_->noteView();
        const QPointF head = tool_ == NoteKind::Arrow ? me->position() : pressAt_;
        const QPointF tail = tool_ == NoteKind::Arrow ? pressAt_ : me->position();
        if (tool_ != NoteKind::Note && placement_->pinHead(a, head) && placement_->pinTail(a, tail))
            set_->setPreview(static_cast<int>(set_->items().size()), a);
        return true;
    }
    set_->setPreview(drag_.index, moved(original_, drag_.part, me->position() - pressAt_));
    return true;
}

bool NoteEditor::mouseReleased(QMouseEvent *me)
{
    if (!pressed_ || me->button() != Qt::LeftButton)
        return false;
    pressed_ = false;
    if (tool_) {
        const NoteKind kind = *tool_;
        set_->clearPreview();
        setTool({});
        emit toolFinished();
        create(kind, pressAt_, me->position());
        return true;
    }
    const QPointF delta = me->position() - pressAt_;
    if (delta.manhattanLength() < kClick)
        set_->clearPreview(); // a click only selects
    else
        set_->replace(drag_.index, moved(original_, drag_.part, delta), tr("Move %1").arg(noteKindName(original_.kind)));
    return true;
}

bool NoteEditor::keyPressed(QKeyEvent *ke)
{
    if (ke->key() == Qt::Key_Escape && (pressed_ || tool_)) {
        pressed_ = false;
        set_->clearPreview();
        setTool({});
        emit toolFinished();
        return true;
    }
    if (!selectedIsHere())
        return false;
    if (ke->key() == Qt::Key_Delete || ke->key() == Qt::Key_Backspace) {
        set_->remove(set_->selected());
        return true;
    }
    if (ke->key() == Qt::Key_F2) {
        editText(set_->selected());
        return true;
    }
    return false;
}

bool NoteEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != surface_)
        return false;
    switch (event->type()) {
    case QEvent::MouseButtonPress: return mousePressed(static_cast<QMouseEvent *>(event));
    case QEvent::MouseMove: return mouseMoved(static_cast<QMouseEvent *>(event));
    case QEvent::MouseButtonRelease: return mouseReleased(static_cast<QMouseEvent *>(event));
    case QEvent::MouseButtonDblClick: {
        auto *me = static_cast<QMouseEvent *>(event);
        const NoteHit hit = hitAt(me->position());
        if (hit.index < 0 || tool_)
            return false;
        editText(hit.index);
        return true;
    }
    case QEvent::KeyPress: return keyPressed(static_cast<QKeyEvent *>(event));
    case QEvent::ContextMenu: {
        auto *ce = static_cast<QContextMenuEvent *>(event);
        showMenu(ce->pos(), ce->globalPos());
        return true;
    }
    default:
        return false;
    }
}

} // namespace memlens
