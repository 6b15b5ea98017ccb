#pragma once
// Two snapshots compared, for tests that check a copy (the cache's) is the same. The model's
// types compare by defaulted operator==, so a field added to them and dropped by a copy fails
// here without anyone listing it; the groups below only name where the first difference is.
#include "model/Snapshot.h"

#include <QString>

namespace memlens {

template <typename T>
inline QString firstDifferent(const std::vector<T> &a, const std::vector<T> &b, const char *what)
{
    if (a.size() != b.size())
        return QString("%1 count").arg(what);
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i]))
            return QString("%1 %2").arg(what).arg(i);
    return {};
}

// The first difference between two snapshots, or "".
inline QString difference(const Snapshot &a, const Snapshot &b)
{
    if (!(a.facts == b.facts))
        return "facts";
    if (!(a.strings == b.strings))
        return "strings";
    if (!(a.frames == b.frames))
        return "frames";
    if (!(a.stacks == b.stacks))
        return "stacks";
    if (a.streams != b.streams)
        return "streams";
    for (const QString &d : {firstDifferent(a.traces, b.traces, "trace of device"), firstDifferent(a.segments, b.segments, "segment"),
                             firstDifferent(a.blocks, b.blocks, "block"), firstDifferent(a.fxFrames, b.fxFrames, "FX frame"),
                             firstDifferent(a.phaseMarks, b.phaseMarks, "phase mark")})
        if (!d.isEmpty())
            return d;
    if (a.pools != b.pools)
        return "pools";
    if (a.implausibleSegments != b.implausibleSegments)
        return "implausible segments";
    if (a.allocatorSettings != b.allocatorSettings)
        return "allocator settings";
    if (a.categories != b.categories)
        return "category timeline";
    if (!(a == b))
        return "a field the groups above do not name";
    return {};
}

} // namespace memlens
