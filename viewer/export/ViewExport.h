#pragma once
// Pictures and text of what is on screen, for bug reports and chats: the current view as PNG
// (1× or 2×) or SVG with a small footer (file, device, event/time, memlens version).

#include <optional>
#include <QImage>
#include <QString>

class QCPPainter;
class QWidget;

namespace memlens {

struct ExportFooter {
    QString file, device, moment, version;
    QString text() const;
};

constexpr int kFooterHeight = 22; // logical pixels

// A widget with this property true keeps its controls in an export: they are what it shows.
inline constexpr char kExportKeepsControls[] = "memlensExportKeepsControls";

// Without a footer: the view alone.
QImage exportImage(QWidget *view, const std::optional<ExportFooter> &footer, qreal scale);
// Paints `view` for vector output: its plots as vectors, not their pixel buffers.
void renderVector(QWidget *view, QCPPainter &painter);
// Writes `view` and its footer as SVG (atomically); returns an error message or an empty string.
QString exportSvg(QWidget *view, const std::optional<ExportFooter> &footer, const QString &path);
// Writes a PNG atomically; returns an error message or an empty string.
QString savePng(const QImage &image, const QString &path);

} // namespace memlens
