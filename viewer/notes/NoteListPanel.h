#pragma once
// The list of a document's notes beside the views: click or Enter jumps to one, double-click
// or F2 edits its text, Delete removes it. The list follows the selection made in the views.
#include <QListWidget>

namespace memlens {

class NoteSet;

class NoteListPanel : public QListWidget {
    Q_OBJECT

public:
    NoteListPanel(NoteSet *set, QWidget *parent = nullptr);

signals:
    void jumpRequested(int index);
    void editRequested(int index);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void refresh();
    NoteSet *set_;
    bool syncing_ = false;
};

} // namespace memlens
