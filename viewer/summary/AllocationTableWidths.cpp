#include "summary/AllocationTableWidths.h"

#include "summary/LiveAllocationModel.h"

#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>

namespace memlens {

void fitAllocationColumns(QTableView *table, const LiveAllocationModel &model)
{
    constexpr int kMinSiteWidth = 160;
    table->setColumnHidden(LiveAllocationModel::Notes, !model.anyNotes());
    // One stream says nothing per row, and its column took the call site's room at 1024 px.
    table->setColumnHidden(LiveAllocationModel::Stream, !model.severalStreams());
    table->resizeColumnsToContents();
    int others = 0;
    for (int c = 0; c < LiveAllocationModel::ColumnCount; ++c)
        if (c != LiveAllocationModel::TopFrame && !table->isColumnHidden(c))
            others += table->columnWidth(c);
    const int left = table->viewport()->width() - others - table->verticalScrollBar()->sizeHint().width();
    table->setColumnWidth(LiveAllocationModel::TopFrame, std::max(kMinSiteWidth, std::min(left, table->columnWidth(LiveAllocationModel::TopFrame))));
}

} // namespace memlens
