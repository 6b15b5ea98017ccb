#include "export/ViewExport.h"

#include "analysis/FrameFilter.h"
#include "model/ByteFormat.h"

#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <qcustomplot.h>

namespace memlens {

namespace {
QString b(uint64_t v)
{
    return QString::fromStdString(formatBytes(v));
}

void drawFooter(QPainter &p, const QRect &strip, const ExportFooter &footer, const QPalette &palette)
{
    p.fillRect(strip, palette.color(QPalette::Window));
    p.setPen(palette.color(QPalette::PlaceholderText));
    p.drawLine(strip.topLeft(), strip.topRight());
    p.setPen(palette.color(QPalette::WindowText));
    p.drawText(strip.adjusted(6, 0, -6, 0), Qt::AlignVCenter | Qt::AlignLeft, footer.text());
}
} // namespace

void renderVector(QWidget *view, QCPPainter &painter)
{
    view->render(&painter);
    // QWidget::render paints QCustomPlot from its pixel buffer; draw the plots again as vectors
    // on top so their text (axes, markers, annotations) stays text in the SVG.
    for (QCustomPlot *plot : view->findChildren<QCustomPlot *>()) {
        if (!plot->isVisibleTo(view))
            continue;
        painter.save();
        painter.translate(plot->mapTo(view, QPoint(0, 0)));
        plot->toPainter(&painter, plot->width(), plot->height());
        painter.restore();
    }
}

QString ExportFooter::text() const
{
    QStringList parts{file, device, moment, QStringLiteral("memlens %1").arg(version)};
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" · "));
}

QImage exportImage(QWidget *view, const ExportFooter &footer, qreal scale)
{
    const QSize logical(view->width(), view->height() + kFooterHeight);
    QImage image(logical * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(view->palette().color(QPalette::Window));
    QPainter p(&image);
    view->render(&p);
    drawFooter(p, QRect(0, view->height(), view->width(), kFooterHeight), footer, view->palette());
    return image;
}

QString exportSvg(QWidget *view, const ExportFooter &footer, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        const QSize size(view->width(), view->height() + kFooterHeight);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setResolution(view->logicalDpiX()); // else text comes out ~25 % too small
        svg.setTitle(footer.text());
        QCPPainter p(&svg);
        renderVector(view, p);
        drawFooter(p, QRect(0, view->height(), view->width(), kFooterHeight), footer, view->palette());
    }
    if (!file.commit())
        return QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

QString savePng(const QImage &image, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
        return QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

QString summaryMarkdown(const Document &doc, int device)
{
    const DeviceData *d = doc.device(device);
    if (!d)
        return {};
    const DeviceSummary &s = d->summary;
    QString md = QStringLiteral("**%1** (%2)\n\n").arg(doc.fileName(), QString::fromStdString(doc.snapshot->deviceName(device)));
    md += QStringLiteral("- Peak active: **%1**%2\n").arg(b(s.peakActiveBytes), s.peakIndex ? QStringLiteral(" at event %1").arg(*s.peakIndex) : QString());
    md += QStringLiteral("- Peak reserved: %1\n").arg(b(s.peakReservedBytes));
    for (const OomInfo &o : s.ooms)
        md += QStringLiteral("- OOM at event %1: %2 requested, %3 free in reserved segments, largest free block %4 → **%5**\n")
                  .arg(o.index)
                  .arg(b(o.size), b(o.reservedFree), b(o.largestFreeBlock), o.fragmentation ? "fragmentation" : "capacity");
    QStringList categories;
    for (int c = 0; c < kCategoryCount; ++c) {
        if (s.categoryBytesAtPeak[static_cast<size_t>(c)])
            categories << QStringLiteral("%1 %2").arg(QString::fromStdString(std::string(categoryName(static_cast<Category>(c)))),
                                                      b(s.categoryBytesAtPeak[static_cast<size_t>(c)]));
    }
    if (!categories.isEmpty())
        md += QStringLiteral("- At the peak: %1\n").arg(categories.join(", "));
    md += QStringLiteral("\n| size | category | allocated at |\n|---:|---|---|\n");
    for (size_t i = 0; i < s.topLiveAtPeak.size() && i < 5; ++i) {
        const LiveBlockInfo &l = s.topLiveAtPeak[i];
        const auto frames = stackFrames(*doc.snapshot, l.stack, true);
        md += QStringLiteral("| %1 | %2 | `%3` |\n")
                  .arg(b(l.size), QString::fromStdString(std::string(categoryName(l.category))),
                       frames.empty() ? QStringLiteral("(no stack recorded)") : QString::fromStdString(doc.snapshot->frameText(frames.front())));
    }
    return md;
}

} // namespace memlens
