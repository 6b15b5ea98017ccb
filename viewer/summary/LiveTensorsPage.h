#pragma once
// Every allocation live at the selected event (default: the peak): sortable, filtered by frame
// text or file and by size, with the totals of what is shown and CSV export. Selecting a row
// selects the allocation in every view.
#include "pipeline/Document.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <QWidget>

class QLabel;
class QCheckBox;
class QLineEdit;
class QStackedWidget;
class QTableView;

namespace memlens {

class LiveAllocationModel;
class LiveFilterProxy;
class ViewState;

class LiveTensorsPage : public QWidget {
    Q_OBJECT

public:
    LiveTensorsPage(ViewState *state, QWidget *parent = nullptr);
    void setFilter(const QString &text, uint64_t minBytes, uint64_t maxBytes);
    // Only allocations created in a step before the cursor's and never freed.
    void setEarlierStepOnly(bool on);
    QTableView *table() const { return table_; }
    QString totalsText() const;
    // Shown instead of the table when the filters leave nothing (with a link that clears them).
    QLabel *emptyNotice() const { return empty_; }
    void clearFilters();
    // Only allocations the unit made (figures/ModuleUnits; ModuleUnits::kOutside: made in none);
    // nothing: every unit's.
    void setUnitFilter(std::optional<int32_t> unit, const QString &name);
    QString exportCsv(const QString &path) const; // error message, or empty

private:
    void rebuild();
    void updateTotals();

    ViewState *state_;
    LiveAllocationModel *model_;
    LiveFilterProxy *proxy_;
    QTableView *table_;
    QLineEdit *text_, *minSize_, *maxSize_;
    QCheckBox *earlierStep_;
    QLabel *unitChip_;
    std::optional<int32_t> unit_;
    TracePoint cursor_; // the moment whose live allocations are shown
    QLabel *title_, *totals_, *empty_;
    QStackedWidget *results_;
};

} // namespace memlens
