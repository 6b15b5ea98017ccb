#include "notes/NoteText.h"

#include "style/AllocationText.h"
#include "style/ByteText.h"

namespace memlens {

Note NoteText::timelineNote(const QString &text, double event, double bytes)
{
    Note a;
    a.text = text;
    a.x = event;
    a.y = bytes;
    return a;
}

QString NoteText::peak(const Snapshot &snapshot, const DeviceSummary &s)
{
    QString text = tr("Peak %1 at event %2").arg(bytesText(s.peakActiveBytes)).arg(s.peakIndex ? s.peakIndex->index() : 0);
    for (size_t i = 0; i < s.topLiveAtPeak.size() && i < 3; ++i)
        text += QStringLiteral("\n%1 %2").arg(bytesText(s.topLiveAtPeak[i].size), siteLabel(snapshot, s.topLiveAtPeak[i].stack, s.topLiveAtPeak[i].autogradThread));
    return text;
}

QString NoteText::oom(const OomDiagnosis &o)
{
    return tr("OOM: %1 requested; %2 free in reserved, largest block %3 → %4")
        .arg(bytesText(o.requested), bytesText(o.reservedFree), bytesText(o.largestFreeBlock), QString::fromStdString(o.verdict()));
}

QString NoteText::largestHoleHere(const OomDiagnosis &o)
{
    return tr("\nthe largest hole, %1, is here").arg(bytesText(o.largestFreeBlock));
}

} // namespace memlens
