#include "notes/NoteSet.h"

#include "model/EnumNames.h"

#include <QUndoCommand>

namespace memlens {

namespace {
constexpr EnumNames<NoteKind, 3> kKindNames{{{{NoteKind::Note, "note"}, {NoteKind::Arrow, "arrow"}, {NoteKind::Box, "box"}}}};
constexpr EnumNames<NoteView, 3> kViewNames{{{{NoteView::Timeline, "timeline"}, {NoteView::Segments, "segments"}, {NoteView::FlameGraph, "flamegraph"}}}};

QString text(std::string_view name)
{
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}
} // namespace

QString noteKindName(NoteKind kind)
{
    return text(kKindNames.name(kind));
}

std::optional<NoteKind> noteKindFromName(const QString &name)
{
    return kKindNames.find(name.toStdString());
}

QString noteViewName(NoteView view)
{
    return text(kViewNames.name(view));
}

std::optional<NoteView> noteViewFromName(const QString &name)
{
    return kViewNames.find(name.toStdString());
}

// One undoable change: the list before and after.
class NoteCommand : public QUndoCommand {
public:
    NoteCommand(NoteSet *set, QList<Note> after, const QString &text)
        : QUndoCommand(text), set_(set), before_(set->items_), after_(std::move(after))
    {
    }
    void redo() override { set_->setItems(after_); }
    void undo() override { set_->setItems(before_); }

private:
    NoteSet *set_;
    QList<Note> before_, after_;
};

NoteSet::NoteSet(QObject *parent) : QObject(parent) {}

void NoteSet::setItems(const QList<Note> &items)
{
    items_ = items;
    previewIndex_ = -1;
    if (selected_ >= items_.size())
        selected_ = -1;
    emit changed();
}

QList<Note> NoteSet::displayItems() const
{
    QList<Note> shown = items_;
    if (previewIndex_ >= 0 && previewIndex_ < shown.size())
        shown[previewIndex_] = preview_;
    else if (previewIndex_ == shown.size())
        shown.append(preview_);
    return shown;
}

void NoteSet::add(const Note &a)
{
    QList<Note> after = items_;
    after.append(a);
    undo_.push(new NoteCommand(this, after, tr("Add %1").arg(noteKindName(a.kind))));
    setSelected(static_cast<int>(items_.size()) - 1);
}

void NoteSet::remove(int index)
{
    if (index < 0 || index >= items_.size())
        return;
    QList<Note> after = items_;
    after.removeAt(index);
    if (selected_ == index)
        selected_ = -1;
    else if (selected_ > index)
        --selected_;
    undo_.push(new NoteCommand(this, after, tr("Delete %1").arg(noteKindName(items_[index].kind))));
}

void NoteSet::replace(int index, const Note &a, const QString &what)
{
    clearPreview();
    if (index < 0 || index >= items_.size() || items_[index] == a)
        return;
    QList<Note> after = items_;
    after[index] = a;
    undo_.push(new NoteCommand(this, after, what.isEmpty() ? tr("Edit %1").arg(noteKindName(a.kind)) : what));
}

void NoteSet::setSelected(int index)
{
    if (index < -1 || index >= items_.size())
        index = -1;
    if (index == selected_)
        return;
    selected_ = index;
    emit appearanceChanged();
}

void NoteSet::setPreview(int index, const Note &a)
{
    previewIndex_ = index;
    preview_ = a;
    emit appearanceChanged();
}

void NoteSet::clearPreview()
{
    if (previewIndex_ < 0)
        return;
    previewIndex_ = -1;
    emit appearanceChanged();
}

nlohmann::json NoteSet::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const Note &a : items_) {
        nlohmann::json j = {{"kind", noteKindName(a.kind).toStdString()}, {"view", noteViewName(a.view).toStdString()}, {"text", a.text.toStdString()},
                            {"x", a.x}, {"y", a.y}, {"x2", a.x2}, {"y2", a.y2}};
        if (!a.target.isEmpty())
            j["target"] = a.target.toStdString();
        if (a.event >= 0)
            j["event"] = a.event;
        list.push_back(std::move(j));
    }
    return list;
}

void NoteSet::setFromJson(const nlohmann::json &json)
{
    QList<Note> items;
    if (json.is_array()) {
        for (const auto &j : json) {
            if (!j.is_object())
                continue;
            // A hand-edited session with a wrong type loses that field, not the whole list.
            auto text = [&](const char *key, const char *fallback) {
                const auto it = j.find(key);
                return QString::fromStdString(it != j.end() && it->is_string() ? it->get<std::string>() : std::string(fallback));
            };
            auto number = [&](const char *key, double fallback) {
                const auto it = j.find(key);
                return it != j.end() && it->is_number() ? it->get<double>() : fallback;
            };
            Note a;
            a.kind = noteKindFromName(text("kind", "note")).value_or(NoteKind::Note);
            a.view = noteViewFromName(text("view", "timeline")).value_or(NoteView::Timeline);
            a.text = text("text", "");
            a.target = text("target", "");
            a.x = number("x", 0);
            a.y = number("y", 0);
            a.x2 = number("x2", 0);
            a.y2 = number("y2", 0);
            const double event = number("event", -1);
            a.event = event >= 0 && event < 4294967296.0 ? static_cast<int64_t>(event) : -1;
            items.append(a);
        }
    }
    undo_.clear();
    selected_ = -1;
    setItems(items);
}

} // namespace memlens
