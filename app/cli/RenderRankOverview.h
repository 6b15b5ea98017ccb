#pragma once
// `memlens render DIR`: a folder of per-rank snapshots drawn as the window's rank overview (its
// heatmap, chart and tables), or with --view modules its units side by side alone.
#include <QSize>
#include <QString>
#include <optional>
#include <string>

namespace memlens {

// A file or folder that cannot be read: "memlens: MESSAGE", exit 1.
struct UnreadableFile {
    std::string message;
};

// Throws std::invalid_argument for a view a folder has not, UnreadableFile for a folder that
// cannot be read or (modules) names no unit.
void renderRankOverview(const std::string &folder, const std::optional<std::string> &view, QSize size, const QString &out, bool noCache);

} // namespace memlens
