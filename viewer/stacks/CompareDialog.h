#pragma once
// Compare mode: live bytes by call site in the open snapshot (A) and another (B) at the same
// moment (peak, OOM or end), sorted by change. B loads in the background.
#include "analysis/CallTree.h"
#include "pipeline/Document.h"

#include <memory>
#include <QDialog>

class QComboBox;
class QLabel;
class QTableWidget;

namespace memlens {

class DocumentLoader;

class CompareDialog : public QDialog {
    Q_OBJECT

public:
    CompareDialog(std::shared_ptr<const Document> a, QWidget *parent = nullptr);
    void compareWith(const QString &path);
    void setOther(std::shared_ptr<const Document> b); // for tests and the loader
    QTableWidget *table() const { return table_; }
    QString totalsText() const;

private:
    void refresh();

    std::shared_ptr<const Document> a_, b_;
    DocumentLoader *loader_;
    QComboBox *at_;
    QLabel *totals_;
    QTableWidget *table_;
};

} // namespace memlens
