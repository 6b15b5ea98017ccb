#include "AnnotationSet.h"

#include <QUndoCommand>

namespace memlens {

// One undoable change: the list before and after.
class AnnotationCommand : public QUndoCommand {
public:
    AnnotationCommand(AnnotationSet *set, QList<Annotation> after, const QString &text)
        : QUndoCommand(text), set_(set), before_(set->items_), after_(std::move(after))
    {
    }
    void redo() override { apply(after_); }
    void undo() override { apply(before_); }

private:
    void apply(const QList<Annotation> &items)
    {
        set_->items_ = items;
        emit set_->changed();
    }
    AnnotationSet *set_;
    QList<Annotation> before_, after_;
};

AnnotationSet::AnnotationSet(QObject *parent) : QObject(parent) {}

void AnnotationSet::add(const Annotation &a)
{
    QList<Annotation> after = items_;
    after.append(a);
    undo_.push(new AnnotationCommand(this, after, tr("Add %1").arg(a.kind)));
}

void AnnotationSet::remove(int index)
{
    if (index < 0 || index >= items_.size())
        return;
    QList<Annotation> after = items_;
    after.removeAt(index);
    undo_.push(new AnnotationCommand(this, after, tr("Delete annotation")));
}

void AnnotationSet::replace(int index, const Annotation &a)
{
    if (index < 0 || index >= items_.size() || items_[index] == a)
        return;
    QList<Annotation> after = items_;
    after[index] = a;
    undo_.push(new AnnotationCommand(this, after, tr("Edit annotation")));
}

nlohmann::json AnnotationSet::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const Annotation &a : items_)
        list.push_back({{"kind", a.kind.toStdString()}, {"view", a.view.toStdString()}, {"text", a.text.toStdString()},
                        {"x", a.x}, {"y", a.y}, {"x2", a.x2}, {"y2", a.y2}});
    return list;
}

void AnnotationSet::setFromJson(const nlohmann::json &json)
{
    items_.clear();
    undo_.clear();
    if (json.is_array()) {
        for (const auto &j : json) {
            if (!j.is_object())
                continue;
            Annotation a;
            a.kind = QString::fromStdString(j.value("kind", std::string("note")));
            a.view = QString::fromStdString(j.value("view", std::string("timeline")));
            a.text = QString::fromStdString(j.value("text", std::string()));
            a.x = j.value("x", 0.0);
            a.y = j.value("y", 0.0);
            a.x2 = j.value("x2", 0.0);
            a.y2 = j.value("y2", 0.0);
            items_.append(a);
        }
    }
    emit changed();
}

} // namespace memlens
