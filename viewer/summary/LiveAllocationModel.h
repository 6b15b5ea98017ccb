#pragma once
// Table of allocations (e.g. the largest live at the peak): size, share, address, stream, top frame.
#include "pipeline/Document.h"

#include <memory>
#include <unordered_map>
#include <QAbstractTableModel>

namespace memlens {

class LiveAllocationModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Size, Share, Rounded, CategoryColumn, Address, Stream, Age, Notes, TopFrame, ColumnCount };
    static constexpr int AllocationRole = Qt::UserRole + 1;
    static constexpr int FractionRole = Qt::UserRole + 2; // share of the largest, for the cost bar

    explicit LiveAllocationModel(QObject *parent = nullptr);

    // `at`: the moment the rows are live at (for their age; none at the start).
    void setAllocations(std::shared_ptr<const Document> doc, int device, std::vector<LiveBlockInfo> rows, uint64_t total,
                        TracePoint at = TracePoint::start());
    const std::vector<LiveBlockInfo> &rows() const { return rows_; }
    QString csv() const; // every row and column, for export
    // Labels (annotate entries), user metadata and compiled region of a row, "; "-separated.
    QString notesText(const LiveBlockInfo &row) const;
    // Whether any row has labels, metadata or a compiled region: the views hide the empty
    // column, which took the width "Allocated at" needs in a narrow window.
    bool anyNotes() const;
    bool severalStreams() const; // rows on more than one CUDA stream

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const Document> doc_;
    int device_ = 0;
    std::vector<LiveBlockInfo> rows_;
    uint64_t total_ = 0;
    uint64_t largest_ = 0;
    TracePoint at_;
    // "Allocated at" per stack, made on first display: sorting by it asks every row many times,
    // and a C++ stack's site reads a hundred frames.
    mutable std::unordered_map<StackId, QString> sites_;
};

} // namespace memlens
