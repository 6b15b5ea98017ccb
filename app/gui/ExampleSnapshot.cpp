#include "gui/ExampleSnapshot.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

namespace memlens {

QString exampleSnapshotPath()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + "/examples";
    const QString path = dir + "/gpt2_fp32_adamw.pickle.zst";
    QFile resource(":/examples/gpt2_fp32_adamw.pickle.zst");
    if (QFileInfo(path).size() == resource.size())
        return path;
    if (!QDir().mkpath(dir) || !resource.open(QIODevice::ReadOnly))
        return {};
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(resource.readAll()) != resource.size() || !out.commit())
        return {};
    return path;
}

} // namespace memlens
