#pragma once
// Compare mode: the open snapshot (A) and another (B) on one axis, and below, live bytes by call
// site in each at the same moment (peak, OOM or end), sorted by change. B loads in the
// background. A's device is the one shown when the dialog opened; B's is the same number, or
// B's first device when B has no such device.
#include "views/CallTree.h"
#include "pipeline/Document.h"

#include <memory>
#include <optional>
#include <QDialog>

class QComboBox;
class QLabel;
class QTableWidget;

namespace memlens {

class DocumentLoader;
class RunOverlayView;

class CompareDialog : public QDialog {
    Q_OBJECT

public:
    CompareDialog(std::shared_ptr<const Document> a, int device, QWidget *parent = nullptr);
    void compareWith(const QString &path);
    // Both runs from files (two ranks of a folder): A's device `deviceA`, B's `deviceB`.
    void compareFiles(const QString &a, int deviceA, const QString &b, int deviceB);
    void setOther(std::shared_ptr<const Document> b); // for tests and the loader
    QTableWidget *table() const { return table_; }
    QString totalsText() const;
    RunOverlayView *overlay() const { return overlay_; }

private:
    void refresh();

    int deviceB() const;

    std::shared_ptr<const Document> a_, b_;
    int device_ = 0;
    std::optional<int> deviceB_; // set by compareFiles
    RunOverlayView *overlay_;
    DocumentLoader *loader_;
    DocumentLoader *loaderA_;
    QComboBox *at_;
    QLabel *totals_;
    QTableWidget *table_;
};

} // namespace memlens
