#pragma once
// The list of a document's annotations beside the views: click or Enter jumps to one, double-click
// or F2 edits its text, Delete removes it. The list follows the selection made in the views.
#include <QListWidget>

namespace memlens {

class AnnotationSet;

class AnnotationListPanel : public QListWidget {
    Q_OBJECT

public:
    AnnotationListPanel(AnnotationSet *set, QWidget *parent = nullptr);

signals:
    void jumpRequested(int index);
    void editRequested(int index);

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void refresh();
    AnnotationSet *set_;
    bool syncing_ = false;
};

} // namespace memlens
