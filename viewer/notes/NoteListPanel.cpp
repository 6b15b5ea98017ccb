#include "notes/NoteListPanel.h"

#include "notes/NoteSet.h"

#include <QKeyEvent>

namespace memlens {

namespace {
QString describe(const Note &a)
{
    QString where;
    if (a.view == NoteView::Timeline)
        where = QObject::tr("timeline, event %1").arg(qint64(a.x));
    else if (a.view == NoteView::Segments)
        where = QObject::tr("segments, 0x%1").arg(static_cast<qulonglong>(a.x), 0, 16);
    else
        where = QObject::tr("flame graph, %1").arg(a.target.isEmpty() ? QObject::tr("all") : a.target.section('\n', -1));
    const QString text = a.text.section('\n', 0, 0);
    return QStringLiteral("%1 · %2%3").arg(noteKindName(a.kind), where, text.isEmpty() ? QString() : ": " + text);
}
} // namespace

NoteListPanel::NoteListPanel(NoteSet *set, QWidget *parent) : QListWidget(parent), set_(set)
{
    setToolTip(tr("Notes: click to jump, double-click or F2 to edit the text, Delete to remove"));
    setWordWrap(false);
    setTextElideMode(Qt::ElideRight);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // elide; the tooltip has the whole text
    connect(set_, &NoteSet::changed, this, &NoteListPanel::refresh);
    connect(set_, &NoteSet::appearanceChanged, this, [this] {
        syncing_ = true;
        setCurrentRow(set_->selected());
        syncing_ = false;
    });
    connect(this, &QListWidget::currentRowChanged, this, [this](int row) {
        if (!syncing_)
            set_->setSelected(row);
    });
    connect(this, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) { emit jumpRequested(row(item)); });
    connect(this, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem *item) { emit editRequested(row(item)); });
}

void NoteListPanel::refresh()
{
    syncing_ = true;
    clear();
    for (const Note &a : set_->items()) {
        auto *item = new QListWidgetItem(describe(a), this);
        item->setToolTip(a.text);
    }
    setCurrentRow(set_->selected());
    syncing_ = false;
}

void NoteListPanel::keyPressEvent(QKeyEvent *event)
{
    const int row = currentRow();
    if (row >= 0 && (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace)) {
        set_->remove(row);
        return;
    }
    if (row >= 0 && event->key() == Qt::Key_F2) {
        emit editRequested(row);
        return;
    }
    if (row >= 0 && (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter)) {
        emit jumpRequested(row);
        return;
    }
    QListWidget::keyPressEvent(event);
}

} // namespace memlens
