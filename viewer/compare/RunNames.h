#pragma once
// What to call two compared runs: their file names, or, when those are the same (every rank
// writes snapshot.pickle), as many trailing path parts as tell them apart ("rank0/snapshot.pickle").
#include <QString>
#include <utility>

namespace memlens {

std::pair<QString, QString> distinguishingNames(const QString &pathA, const QString &pathB);

} // namespace memlens
