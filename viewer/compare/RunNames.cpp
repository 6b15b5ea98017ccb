#include "compare/RunNames.h"

#include <QDir>
#include <QStringList>

namespace memlens {

std::pair<QString, QString> distinguishingNames(const QString &pathA, const QString &pathB)
{
    const QStringList a = QDir::cleanPath(pathA).split('/', Qt::SkipEmptyParts), b = QDir::cleanPath(pathB).split('/', Qt::SkipEmptyParts);
    auto tail = [](const QStringList &parts, qsizetype n) { return parts.mid(std::max<qsizetype>(0, parts.size() - n)).join('/'); };
    for (qsizetype n = 1; n <= std::max(a.size(), b.size()); ++n) {
        const QString ta = tail(a, n), tb = tail(b, n);
        if (ta != tb)
            return {ta, tb};
    }
    return {tail(a, 1), tail(b, 1)}; // the same file
}

} // namespace memlens
