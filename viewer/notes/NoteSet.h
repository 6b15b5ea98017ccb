#pragma once
// Notes, arrows and boxes users pin to data on a view, so they stay put on zoom, pan and axis
// changes. What the coordinates mean depends on the view:
//   timeline:   (x, y) = (event index, bytes); (x2, y2) = the arrow's tail / the box's corner, also data.
//   segments:   x = a device address (a block or segment at the cursor); box: x2 = the second
//               corner's address; arrow: (x2, y2) = the tail's pixel offset from the head.
//   flamegraph: target = the frame path from the root ('\n' between frames); (x, y) = where in
//               that frame's box (fractions); arrow: (x2, y2) = tail offset in pixels; box: y2 =
//               extra rows below the frame that the outline covers.
// `event` is the cursor when it was made: "jump to" goes back there. Edits go through a
// QUndoStack (Ctrl+Z / Ctrl+Shift+Z); the selection and a drag in progress are not undoable.
#include <nlohmann/json.hpp>
#include <optional>
#include <QObject>
#include <QString>
#include <QUndoStack>

namespace memlens {

enum class NoteKind { Note, Arrow, Box };
enum class NoteView { Timeline, Segments, FlameGraph };
// The one table of their names, as sessions spell them ("note", "timeline", …).
QString noteKindName(NoteKind kind);
std::optional<NoteKind> noteKindFromName(const QString &name);
QString noteViewName(NoteView view);
std::optional<NoteView> noteViewFromName(const QString &name);

struct Note {
    NoteKind kind = NoteKind::Note;
    NoteView view = NoteView::Timeline;
    QString text;
    double x = 0, y = 0;
    double x2 = 0, y2 = 0;
    QString target;
    int64_t event = -1;
    bool operator==(const Note &) const = default;
};

class NoteSet : public QObject {
    Q_OBJECT

public:
    explicit NoteSet(QObject *parent = nullptr);

    const QList<Note> &items() const { return items_; }
    // What views draw: the items, with the one being dragged at its preview position.
    QList<Note> displayItems() const;
    QUndoStack *undoStack() { return &undo_; }

    void add(const Note &a);
    void remove(int index);
    // Edit or move; `what` names the step in the Undo menu ("Move arrow", "Edit note text").
    void replace(int index, const Note &a, const QString &what = {});

    int selected() const { return selected_; } // -1: none
    void setSelected(int index);
    // A drag in progress shows `a` in place of item `index` (or, at index == size, as an extra
    // item being drawn) until it is committed or cleared.
    void setPreview(int index, const Note &a);
    void clearPreview();

    nlohmann::json toJson() const;
    // Replaces everything (not undoable: a session being opened).
    void setFromJson(const nlohmann::json &json);

signals:
    void changed();          // the items (undoable edits, sessions)
    void appearanceChanged(); // selection or drag preview: repaint only

private:
    friend class NoteCommand;
    void setItems(const QList<Note> &items);
    QList<Note> items_;
    QUndoStack undo_;
    int selected_ = -1;
    int previewIndex_ = -1;
    Note preview_;
};

} // namespace memlens
