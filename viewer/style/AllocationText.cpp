#include "style/AllocationText.h"

#include "index/FrameFilter.h"
#include "attribution/AllocationSite.h"
#include "style/ByteText.h"

#include <QObject>
#include <QStringList>

namespace memlens {

namespace {

QString roundedSize(uint64_t requested)
{
    // The caching allocator hands out multiples of 512 bytes.
    const uint64_t rounded = (requested + 511) / 512 * 512;
    return rounded == requested ? QString() : QObject::tr(" (%1 rounded)").arg(bytesText(rounded));
}

QString lifetime(const DeviceIndex &index, const Allocation &a)
{
    const QString from = a.fromBeforeTrace() ? QObject::tr("before the trace") : eventLabel(index, a.allocEvent);
    const QString to = a.freeCompleted == kNever ? QObject::tr("still live at the end") : eventLabel(index, a.freeCompleted);
    return QObject::tr("%1 → %2").arg(from, to);
}

// What the trace says about an allocation beyond size and stack: (label, value) pairs.
QList<std::pair<QString, QString>> notes(const Snapshot &snapshot, const DeviceIndex &index, AllocationId allocation)
{
    QList<std::pair<QString, QString>> out;
    for (const std::string &label : index.labelsOf(allocation))
        out.append({QObject::tr("Label"), QString::fromStdString(label)});
    if (const StringId meta = index.userMetadataOf(allocation); meta != StringTable::kEmpty)
        out.append({QObject::tr("User metadata"), snapshotText(snapshot, meta)});
    if (const StringId compiled = index.compileContextOf(allocation); compiled != StringTable::kEmpty)
        out.append({QObject::tr("Compiled region"), snapshotText(snapshot, compiled)});
    if (index.allocation(allocation).fromBeforeTrace() && allocation != index.preProfileAllocation())
        out.append({QObject::tr("Ghost block"), QObject::tr("alive before the first entry, so the trace has no alloc entry for it; "
                                                            "a stack shows only when the final snapshot lists one")});
    else if (allocation == index.preProfileAllocation())
        out.append({QObject::tr("Before profiling"), QObject::tr("allocated before the profiler started (Total Allocated − Bytes "
                                                                 "of the first event, less frees the trace records)")});
    if (const PoolIndex pool = index.poolOf(allocation); pool != PoolIndex(0)) {
        const auto &[p0, p1] = snapshot.poolId(pool);
        out.append({QObject::tr("Private pool"), QStringLiteral("(%1, %2)").arg(p0).arg(p1)});
    }
    return out;
}

} // namespace

QString snapshotText(const Snapshot &snapshot, StringId id)
{
    const std::string_view v = snapshot.strings.at(id);
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

QString pointLabel(const DeviceIndex &index, TracePoint at)
{
    return at.isStart() ? QObject::tr("start") : eventLabel(index, at.lastEntry());
}

QString eventLabel(const DeviceIndex &index, EventId event)
{
    QString text = QObject::tr("event %1").arg(event.index());
    const int64_t t = index.events().timeUs[event.index()];
    const int64_t t0 = index.eventCount() ? index.events().timeUs[0] : 0;
    if (t != 0)
        text += QObject::tr(" (+%1 s)").arg(static_cast<double>(t - t0) / 1e6, 0, 'f', 3);
    return text;
}

QString allocationTooltip(const Document &doc, const DeviceIndex &index, AllocationId allocation, int frames)
{
    const AllocationDetail d = index.detail(allocation);
    const Allocation &a = index.allocation(allocation);
    QStringList lines;
    lines << QObject::tr("%1 requested%2").arg(bytesText(d.size), roundedSize(d.size));
    // What it is, as category colouring shows it.
    if (const DeviceData *device = doc.device(index.device()); device && device->categories)
        lines << QObject::tr("category: %1").arg(QString::fromUtf8(categoryLabel(device->categories->of(allocation))));
    lines << QObject::tr("address 0x%1, stream %2").arg(d.addr, 0, 16).arg(d.stream);
    lines << lifetime(index, a);
    for (const auto &[label, value] : notes(*doc.snapshot, index, allocation))
        lines << label + ": " + value.left(200);
    lines << QObject::tr("allocated at %1").arg(siteLabel(*doc.snapshot, d.stack, index.madeOnAutogradThread(allocation)));
    const auto ids = stackFrames(*doc.snapshot, d.stack, true);
    for (size_t i = 0; i < ids.size() && static_cast<int>(i) < frames; ++i)
        lines << QString::fromStdString(shownFrameText(*doc.snapshot, ids[i]));
    if (static_cast<int>(ids.size()) > frames)
        lines << QObject::tr("… %1 more frames").arg(ids.size() - static_cast<size_t>(frames));
    return lines.join('\n');
}

QString allocationDetailsHtml(const Document &doc, const DeviceIndex &index, AllocationId allocation, bool allFrames)
{
    const AllocationDetail d = index.detail(allocation);
    const Allocation &a = index.allocation(allocation);
    QString html = QObject::tr("<h3>%1 allocation</h3>").arg(bytesText(d.size).toHtmlEscaped());
    // One "label: value" line each: the panel is narrow and a table wrapped its labels mid-word.
    auto row = [&](const QString &k, const QString &v) {
        html += QStringLiteral("<div><b>%1:</b> %2</div>").arg(k.toHtmlEscaped(), v.toHtmlEscaped());
    };
    row(QObject::tr("Requested"), QString::fromStdString(groupDigits(d.size)) + " B" + roundedSize(d.size));
    row(QObject::tr("Address"), QStringLiteral("0x%1").arg(d.addr, 0, 16));
    row(QObject::tr("Stream"), QString::number(d.stream));
    row(QObject::tr("Allocated"), a.fromBeforeTrace() ? QObject::tr("before the trace") : eventLabel(index, a.allocEvent));
    if (a.freeRequested != kNever && a.freeRequested != a.freeCompleted)
        row(QObject::tr("Free requested"), eventLabel(index, a.freeRequested));
    row(QObject::tr("Freed"), a.freeCompleted == kNever ? QObject::tr("still live at the end") : eventLabel(index, a.freeCompleted));
    for (const auto &[label, value] : notes(*doc.snapshot, index, allocation))
        row(label, value);
    row(QObject::tr("Allocated at"), siteLabel(*doc.snapshot, d.stack, index.madeOnAutogradThread(allocation)));
    html += "<h4>" + QObject::tr("Stack (innermost first)") + "</h4><ol>";
    const auto ids = stackFrames(*doc.snapshot, d.stack, !allFrames);
    for (FrameId id : ids) {
        const Frame &f = doc.snapshot->frames.at(id);
        if (const FxFrame *fx = doc.snapshot->fxFrame(id)) {
            // FX-generated code: the graph node, and the model line it was traced from.
            html += QStringLiteral("<li><code>%1</code> <small>(%2 %3)</small><br/><small>%4</small><pre>%5</pre></li>")
                        .arg(snapshotText(*doc.snapshot, fx->node).toHtmlEscaped(), snapshotText(*doc.snapshot, fx->op).toHtmlEscaped(),
                             snapshotText(*doc.snapshot, fx->target).toHtmlEscaped(),
                             QString::fromStdString(doc.snapshot->frameText(id)).toHtmlEscaped(),
                             snapshotText(*doc.snapshot, fx->originalTrace).trimmed().toHtmlEscaped());
            continue;
        }
        // With noise hidden a C++ frame is its function or operator, not a four-line signature.
        const QString name = allFrames ? snapshotText(*doc.snapshot, f.name) : QString::fromStdString(shownFrameText(*doc.snapshot, id));
        html += QStringLiteral("<li><code>%1</code><br/><small>%2:%3</small></li>")
                    .arg(name.toHtmlEscaped(), snapshotText(*doc.snapshot, f.file).toHtmlEscaped())
                    .arg(f.line);
    }
    html += "</ol>";
    if (ids.empty())
        html += QObject::tr("<p>No stack was recorded for this allocation.</p>");
    return html;
}

QString siteLabel(const Snapshot &snapshot, StackId stack, bool autogradThread)
{
    return QString::fromStdString(siteLine(snapshot, allocationSite(snapshot, stack, autogradThread)));
}

} // namespace memlens
