#pragma once
// The allocator's event list of one device (12 M rows are fine: rows are computed on demand),
// filtered by action and by address without a proxy, which would visit every row.
#include "pipeline/Document.h"

#include <memory>
#include <optional>
#include <QAbstractTableModel>

namespace memlens {

class EventListModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Index, ActionColumn, Address, Size, Stream, Time, Detail, ColumnCount };
    static constexpr int EventRole = Qt::UserRole + 1;

    explicit EventListModel(QObject *parent = nullptr);

    void setDevice(std::shared_ptr<const Document> doc, int device);
    // Only events with this action (nullopt: all) and, if set, at this address.
    void setFilter(std::optional<Action> action, std::optional<uint64_t> address);
    // Row showing `event`, or the row of the last shown event before it; -1 when none.
    int rowForEvent(EventId event) const;
    EventId eventAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const Document> doc_;
    const DeviceData *device_ = nullptr;
    bool filtered_ = false;
    std::vector<EventId> rows_; // event of each row when filtered
};

} // namespace memlens
