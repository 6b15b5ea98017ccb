#include "annotations/AnnotationSet.h"

#include <QUndoCommand>

namespace memlens {

// One undoable change: the list before and after.
class AnnotationCommand : public QUndoCommand {
public:
    AnnotationCommand(AnnotationSet *set, QList<Annotation> after, const QString &text)
        : QUndoCommand(text), set_(set), before_(set->items_), after_(std::move(after))
    {
    }
    void redo() override { set_->setItems(after_); }
    void undo() override { set_->setItems(before_); }

private:
    AnnotationSet *set_;
    QList<Annotation> before_, after_;
};

AnnotationSet::AnnotationSet(QObject *parent) : QObject(parent) {}

void AnnotationSet::setItems(const QList<Annotation> &items)
{
    items_ = items;
    previewIndex_ = -1;
    if (selected_ >= items_.size())
        selected_ = -1;
    emit changed();
}

QList<Annotation> AnnotationSet::displayItems() const
{
    QList<Annotation> shown = items_;
    if (previewIndex_ >= 0 && previewIndex_ < shown.size())
        shown[previewIndex_] = preview_;
    else if (previewIndex_ == shown.size())
        shown.append(preview_);
    return shown;
}

void AnnotationSet::add(const Annotation &a)
{
    QList<Annotation> after = items_;
    after.append(a);
    undo_.push(new AnnotationCommand(this, after, tr("Add %1").arg(a.kind)));
    setSelected(static_cast<int>(items_.size()) - 1);
}

void AnnotationSet::remove(int index)
{
    if (index < 0 || index >= items_.size())
        return;
    QList<Annotation> after = items_;
    after.removeAt(index);
    if (selected_ == index)
        selected_ = -1;
    else if (selected_ > index)
        --selected_;
    undo_.push(new AnnotationCommand(this, after, tr("Delete %1").arg(items_[index].kind)));
}

void AnnotationSet::replace(int index, const Annotation &a, const QString &what)
{
    clearPreview();
    if (index < 0 || index >= items_.size() || items_[index] == a)
        return;
    QList<Annotation> after = items_;
    after[index] = a;
    undo_.push(new AnnotationCommand(this, after, what.isEmpty() ? tr("Edit %1").arg(a.kind) : what));
}

void AnnotationSet::setSelected(int index)
{
    if (index < -1 || index >= items_.size())
        index = -1;
    if (index == selected_)
        return;
    selected_ = index;
    emit appearanceChanged();
}

void AnnotationSet::setPreview(int index, const Annotation &a)
{
    previewIndex_ = index;
    preview_ = a;
    emit appearanceChanged();
}

void AnnotationSet::clearPreview()
{
    if (previewIndex_ < 0)
        return;
    previewIndex_ = -1;
    emit appearanceChanged();
}

nlohmann::json AnnotationSet::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const Annotation &a : items_) {
        nlohmann::json j = {{"kind", a.kind.toStdString()}, {"view", a.view.toStdString()}, {"text", a.text.toStdString()},
                            {"x", a.x}, {"y", a.y}, {"x2", a.x2}, {"y2", a.y2}};
        if (!a.target.isEmpty())
            j["target"] = a.target.toStdString();
        if (a.event >= 0)
            j["event"] = a.event;
        list.push_back(std::move(j));
    }
    return list;
}

void AnnotationSet::setFromJson(const nlohmann::json &json)
{
    QList<Annotation> items;
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
            Annotation a;
            a.kind = text("kind", "note");
            a.view = text("view", "timeline");
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
