#pragma once
// What is live at the selected event (default: the peak), by call stack: a top-down or bottom-up
// tree with cost bars and a flame graph of the same data; search, the heaviest path, toggles for
// noise frames, Python-only and recursion folding, and folded-stack export.
#include "views/CallTree.h"

#include <memory>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTreeView;

namespace memlens {

class CallTreeModel;
class FlameGraphWidget;
class ViewState;

class StacksPage : public QWidget {
    Q_OBJECT

public:
    StacksPage(ViewState *state, QWidget *parent = nullptr);

    CallTreeOptions options() const;
    // What the trees show: allocations live at the cursor, or allocated in the visible range.
    void setAllocatedInRange(bool range);
    bool allocatedInRange() const;
    void setOptions(const CallTreeOptions &options);
    const CallTree *tree() const { return tree_.get(); }
    QTreeView *treeView() const { return view_; }
    FlameGraphWidget *flameGraph() const { return flame_; }
    void expandHeaviest();
    // Writes folded stacks (atomically); returns an error message or an empty string.
    QString exportFolded(const QString &path) const;

private:
    void rebuild();
    QString groupingText() const;

    ViewState *state_;
    std::shared_ptr<const CallTree> tree_;
    QLabel *title_;
    QComboBox *direction_;
    QComboBox *groupBy_;
    QComboBox *scope_;
    QCheckBox *hideNoise_, *pythonOnly_, *foldRecursion_;
    QLineEdit *search_;
    QTreeView *view_;
    CallTreeModel *model_;
    FlameGraphWidget *flame_;
    bool updating_ = false;
};

} // namespace memlens
