#include "timeline/GapBreaks.h"

#include "model/ByteFormat.h"

#include <QCoreApplication>

namespace memlens {

void drawGapBreaks(QPainter &painter, const QRect &area, const std::vector<TraceGap> &gaps, int device,
                   const std::function<double(int64_t timeUs)> &pixelOfTime, bool dark)
{
    const QFontMetrics fm(painter.font());
    const QColor ink = dark ? QColor(170, 170, 185) : QColor(110, 110, 120);
    for (const TraceGap &g : gaps) {
        if (g.device != device)
            continue;
        double xa = pixelOfTime(g.fromUs), xb = pixelOfTime(g.toUs);
        if (xb - xa < 8) {
            const double middle = (xa + xb) / 2;
            xa = middle - 4;
            xb = middle + 4;
        }
        if (xb < area.left() || xa > area.right() + 1)
            continue;
        const QRectF band(QPointF(xa, area.top()), QPointF(xb, area.bottom()));
        painter.fillRect(band, dark ? QColor(36, 36, 42) : QColor(248, 248, 248));
        painter.fillRect(band, QBrush(ink, Qt::BDiagPattern));
        painter.setPen(QPen(ink, 1));
        painter.drawLine(QLineF(xa, area.top(), xa, area.bottom()));
        painter.drawLine(QLineF(xb, area.top(), xb, area.bottom()));
        const QString label = QCoreApplication::translate("memlens", "gap, %1 lost").arg(QString::fromStdString(formatDuration(g.toUs - g.fromUs)));
        const QRectF box(xb + 3, area.bottom() - fm.height() - 6, fm.horizontalAdvance(label) + 8, fm.height() + 2);
        if (box.right() > area.right())
            continue; // not cut by the plot's edge
        painter.setBrush(dark ? QColor(30, 30, 34, 220) : QColor(255, 255, 255, 220));
        painter.drawRect(box);
        painter.setPen(dark ? Qt::white : Qt::black);
        painter.drawText(box, Qt::AlignCenter, label);
    }
}

} // namespace memlens
