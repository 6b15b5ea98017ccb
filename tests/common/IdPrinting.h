#pragma once
// How QCOMPARE prints an id (QTest finds toString by argument-dependent lookup).
#include "model/Ids.h"

#include <QTest>

namespace memlens {

template <typename Tag>
char *toString(Id<Tag> id)
{
    return id.isNone() ? qstrdup("none") : QTest::toString(id.index());
}

} // namespace memlens
