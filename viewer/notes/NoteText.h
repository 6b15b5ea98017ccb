#pragma once
// What the ready-made notes say: the peak with its largest live blocks, an OOM with its
// verdict (and, on the segment map, where the largest hole is); a timeline note at an event.
#include "figures/SnapshotSummary.h"
#include "notes/NoteSet.h"

#include <QCoreApplication>
#include <QString>

namespace memlens {

class NoteText {
    Q_DECLARE_TR_FUNCTIONS(DocumentView)

public:
    // A note on the timeline at `event`, `bytes` high.
    static Note timelineNote(const QString &text, double event, double bytes);
    // "Peak 1.2 GiB at event N" and the three largest blocks live there with their sites.
    static QString peak(const Snapshot &snapshot, const DeviceSummary &summary);
    // "OOM: … requested; … free in reserved, largest block … → verdict".
    static QString oom(const OomDiagnosis &oom);
    // Added to an OOM note placed on the segment map's largest hole.
    static QString largestHoleHere(const OomDiagnosis &oom);
};

} // namespace memlens
