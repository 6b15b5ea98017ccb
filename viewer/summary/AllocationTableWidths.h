#pragma once
// The widths of a table of LiveAllocationModel rows (the Summary and Live pages): every column
// to its contents, the empty Labels column hidden, and "Allocated at" given the width left so
// that it wraps in a narrow window instead of running off to the right.
class QTableView;

namespace memlens {

class LiveAllocationModel;

void fitAllocationColumns(QTableView *table, const LiveAllocationModel &model);

} // namespace memlens
