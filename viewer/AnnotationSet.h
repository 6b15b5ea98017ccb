#pragma once
// Notes, arrows and boxes users pin to data on a view: positions are data coordinates (event
// index and bytes on the timeline), so they stay put on zoom, pan and axis changes. Edits go
// through a QUndoStack (Ctrl+Z / Ctrl+Shift+Z). Stored in sessions as JSON.
#include <QObject>
#include <QString>
#include <QUndoStack>
#include <nlohmann/json.hpp>

namespace memlens {

struct Annotation {
    QString kind = "note"; // note, arrow, box
    QString view = "timeline";
    QString text;
    double x = 0, y = 0;   // anchor: event index, bytes
    double x2 = 0, y2 = 0; // arrow start / box corner (notes: unused)
    bool operator==(const Annotation &) const = default;
};

class AnnotationSet : public QObject {
    Q_OBJECT

public:
    explicit AnnotationSet(QObject *parent = nullptr);

    const QList<Annotation> &items() const { return items_; }
    QUndoStack *undoStack() { return &undo_; }

    void add(const Annotation &a);
    void remove(int index);
    void replace(int index, const Annotation &a); // edit or move

    nlohmann::json toJson() const;
    // Replaces everything (not undoable: a session being opened).
    void setFromJson(const nlohmann::json &json);

signals:
    void changed();

private:
    friend class AnnotationCommand;
    QList<Annotation> items_;
    QUndoStack undo_;
};

} // namespace memlens
