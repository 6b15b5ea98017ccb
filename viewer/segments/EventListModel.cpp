#include "segments/EventListModel.h"

#include "style/AllocationText.h"
#include "style/ByteText.h"

#include <QBrush>
#include <QColor>

namespace memlens {

EventListModel::EventListModel(QObject *parent) : QAbstractTableModel(parent) {}

void EventListModel::setDevice(std::shared_ptr<const Document> doc, int device)
{
    beginResetModel();
    doc_ = std::move(doc);
    device_ = doc_ ? doc_->device(device) : nullptr;
    filtered_ = false;
    rows_.clear();
    endResetModel();
}

void EventListModel::setFilter(std::optional<Action> action, std::optional<uint64_t> address)
{
    beginResetModel();
    rows_.clear();
    filtered_ = action.has_value() || address.has_value();
    if (filtered_ && device_) {
        const EventTable &ev = device_->index->events();
        for (uint32_t e = 0; e < ev.count(); ++e) {
            if (action && ev.action[e] != *action)
                continue;
            if (address && (ev.addr[e] != *address || ev.action[e] == Action::Oom))
                continue;
            rows_.push_back(EventId(e));
        }
    }
    endResetModel();
}

int EventListModel::rowForEvent(EventId event) const
{
    if (!device_ || event.isNone())
        return -1;
    if (!filtered_)
        return event.index() < device_->index->eventCount() ? static_cast<int>(event.index()) : -1;
    auto it = std::upper_bound(rows_.begin(), rows_.end(), event);
    return it == rows_.begin() ? -1 : static_cast<int>(it - rows_.begin() - 1);
}

EventId EventListModel::eventAt(int row) const
{
    return filtered_ ? rows_[static_cast<size_t>(row)] : EventId(static_cast<uint32_t>(row));
}

int EventListModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !device_)
        return 0;
    // Views cope with row counts up to INT_MAX; traces are far below.
    return filtered_ ? static_cast<int>(rows_.size()) : static_cast<int>(device_->index->eventCount());
}

int EventListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !device_ || index.row() >= rowCount())
        return {};
    const uint32_t e = eventAt(index.row()).index();
    const EventTable &ev = device_->index->events();
    const Action action = ev.action[e];
    if (role == EventRole)
        return e;
    if (role == Qt::ForegroundRole && action == Action::Oom)
        return QBrush(QColor(220, 40, 40));
    if (role == Qt::TextAlignmentRole)
        return (index.column() == ActionColumn || index.column() == Detail) ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                                            : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Index:
        return e;
    case ActionColumn:
        if (action == Action::Other) {
            for (const auto &[row, name] : ev.otherNames) {
                if (row == e)
                    return QString::fromStdString(std::string(doc_->snapshot->strings.at(name)));
            }
        }
        return QString::fromStdString(std::string(actionName(action)));
    case Address:
        return action == Action::Oom ? QString() : QStringLiteral("0x%1").arg(ev.addr[e], 0, 16);
    case Size:
        return bytesText(ev.size[e]);
    case Stream:
        return ev.stream[e].index() < doc_->snapshot->streams.size() ? QString::number(doc_->snapshot->streamValue(ev.stream[e])) : QString();
    case Time:
        return ev.timeUs[e] ? QStringLiteral("+%1 s").arg(static_cast<double>(ev.timeUs[e] - ev.timeUs[0]) / 1e6, 0, 'f', 6) : QString();
    case Detail: {
        if (action == Action::Oom)
            return tr("requested %1, device had %2 free")
                .arg(bytesText(ev.size[e]), bytesText(ev.addr[e]));
        return doc_->snapshot->stacks.at(ev.stack[e]).empty() ? QString() : siteLabel(*doc_->snapshot, ev.stack[e]);
    }
    default:
        return {};
    }
}

QVariant EventListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Index: return tr("Event");
    case ActionColumn: return tr("Action");
    case Address: return tr("Address");
    case Size: return tr("Size");
    case Stream: return tr("Stream");
    case Time: return tr("Time");
    case Detail: return tr("Where / what");
    default: return {};
    }
}

} // namespace memlens
