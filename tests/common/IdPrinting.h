#pragma once
// How QCOMPARE prints an id (QTest finds toString by argument-dependent lookup).
#include "model/Ids.h"

#include <QTest>
#include <string>

namespace memlens {

template <typename Tag>
char *toString(Id<Tag> id)
{
    return id.isNone() ? qstrdup("none") : QTest::toString(id.index());
}

inline char *toString(TracePoint t)
{
    return qstrdup(t.isStart() ? "start" : ("after entry " + std::to_string(t.lastEntry().index())).c_str());
}

} // namespace memlens
