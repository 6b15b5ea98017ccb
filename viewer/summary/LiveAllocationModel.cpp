#include "summary/LiveAllocationModel.h"

#include "index/AllocatorState.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"

namespace memlens {

LiveAllocationModel::LiveAllocationModel(QObject *parent) : QAbstractTableModel(parent) {}

void LiveAllocationModel::setAllocations(std::shared_ptr<const Document> doc, int device, std::vector<LiveBlockInfo> rows,
                                         uint64_t total, TracePoint at)
{
    beginResetModel();
    at_ = at;
    doc_ = std::move(doc);
    device_ = device;
    rows_ = std::move(rows);
    sites_.clear();
    total_ = total;
    largest_ = 0;
    for (const LiveBlockInfo &r : rows_)
        largest_ = std::max(largest_, r.size);
    endResetModel();
}

int LiveAllocationModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int LiveAllocationModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LiveAllocationModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= static_cast<int>(rows_.size()) || !doc_)
        return {};
    const LiveBlockInfo &r = rows_[static_cast<size_t>(index.row())];
    if (role == AllocationRole)
        return r.allocation.index();
    if (role == FractionRole)
        return largest_ ? static_cast<double>(r.size) / static_cast<double>(largest_) : 0.0;
    if (role == Qt::ToolTipRole) {
        if (const DeviceData *d = doc_->device(device_))
            return allocationTooltip(*doc_, *d->index, r.allocation, 8);
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == TopFrame || index.column() == Notes ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    switch (index.column()) {
    case Size:
        return role == Qt::EditRole ? QVariant::fromValue<qulonglong>(r.size) : bytesText(r.size);
    case Share:
        return total_ ? QStringLiteral("%1 %").arg(100.0 * static_cast<double>(r.size) / static_cast<double>(total_), 0, 'f', 1)
                      : QString();
    case Rounded: {
        const uint64_t rounded = roundedBlockSize(r.size);
        return role == Qt::EditRole ? QVariant::fromValue<qulonglong>(rounded) : bytesText(rounded);
    }
    case Age: {
        if (at_.isStart())
            return {};
        if (r.allocEvent.isNone())
            return role == Qt::EditRole ? QVariant::fromValue<qlonglong>(-1) : QVariant(tr("from before the trace"));
        const qlonglong events = qlonglong(at_.lastEntry().index()) - qlonglong(r.allocEvent.index());
        if (role == Qt::EditRole)
            return events;
        const DeviceData *d = doc_->device(device_);
        const double seconds = d ? double(d->index->events().timeUs[at_.lastEntry().index()] - d->index->events().timeUs[r.allocEvent.index()]) / 1e6 : 0.0;
        return tr("%1 events, %2 s").arg(events).arg(seconds, 0, 'f', 3);
    }
    case CategoryColumn:
        return QString::fromLatin1(categoryLabel(r.category).data(), static_cast<qsizetype>(categoryLabel(r.category).size()));
    case Address:
        return QStringLiteral("0x%1").arg(r.addr, 0, 16);
    case Stream:
        return QString::number(r.stream);
    case Notes:
        return notesText(r);
    case TopFrame: {
        if (r.autogradThread)
            return siteLabel(*doc_->snapshot, r.stack, true);
        auto it = sites_.find(r.stack);
        if (it == sites_.end())
            it = sites_.emplace(r.stack, siteLabel(*doc_->snapshot, r.stack)).first;
        return it->second;
    }
    default:
        return {};
    }
}

QString LiveAllocationModel::notesText(const LiveBlockInfo &r) const
{
    QStringList parts;
    for (const std::string &label : r.labels)
        parts << QString::fromStdString(label);
    for (StringId id : {r.userMetadata, r.compileContext}) {
        if (id != StringTable::kEmpty && doc_)
            parts << snapshotText(*doc_->snapshot, id);
    }
    return parts.join(QStringLiteral("; "));
}

bool LiveAllocationModel::anyNotes() const
{
    return std::any_of(rows_.begin(), rows_.end(), [](const LiveBlockInfo &r) {
        return !r.labels.empty() || r.userMetadata != StringTable::kEmpty || r.compileContext != StringTable::kEmpty;
    });
}

bool LiveAllocationModel::severalStreams() const
{
    return std::any_of(rows_.begin(), rows_.end(), [&](const LiveBlockInfo &r) { return r.stream != rows_.front().stream; });
}

QString LiveAllocationModel::csv() const
{
    QString out = "size,block,category,address,stream,alloc_event,labels,top_frame\n";
    for (int row = 0; row < rowCount(); ++row) {
        const LiveBlockInfo &r = rows_[static_cast<size_t>(row)];
        QString frame = data(index(row, TopFrame), Qt::DisplayRole).toString();
        frame.replace('"', "\"\"");
        QString notes = notesText(r);
        notes.replace('"', "\"\"");
        out += QStringLiteral("%1,%2,%3,0x%4,%5,%6,\"%7\",\"%8\"\n")
                   .arg(r.size)
                   .arg(roundedBlockSize(r.size))
                   .arg(QString::fromLatin1(categoryName(r.category).data(), static_cast<qsizetype>(categoryName(r.category).size())))
                   .arg(r.addr, 0, 16)
                   .arg(r.stream)
                   .arg(r.allocEvent.isNone() ? QString() : QString::number(r.allocEvent.index()))
                   .arg(notes, frame);
    }
    return out;
}

QVariant LiveAllocationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Size: return tr("Size");
    case Share: return at_.isStart() ? tr("Of peak") : tr("Of live");
    case Rounded: return tr("Block");
    case Age: return tr("Age");
    case CategoryColumn: return tr("Category");
    case Address: return tr("Address");
    case Stream: return tr("Stream");
    case Notes: return tr("Labels");
    case TopFrame: return tr("Allocated at");
    default: return {};
    }
}

} // namespace memlens
