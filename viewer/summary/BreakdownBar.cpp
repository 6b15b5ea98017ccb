#include "summary/BreakdownBar.h"

#include "style/ByteText.h"

#include <QPainter>

namespace memlens {

BreakdownBar::BreakdownBar(QWidget *parent) : QWidget(parent)
{
    setMinimumHeight(84);
}

void BreakdownBar::setParts(std::vector<Part> parts, double capacity, double measured)
{
    parts_ = std::move(parts);
    capacity_ = capacity;
    measured_ = measured;
    update();
}

void BreakdownBar::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    double total = 0;
    for (const Part &part : parts_)
        total += part.bytes;
    const double scale = std::max({total, capacity_, measured_, 1.0}) * 1.05;
    const QRectF bar(8, 8, width() - 16, 30);
    p.fillRect(bar, pal.color(QPalette::AlternateBase));
    double x = bar.left();
    const QFontMetrics fm(font());
    for (const Part &part : parts_) {
        const double w = part.bytes / scale * bar.width();
        const QRectF r(x, bar.top(), w, bar.height());
        p.fillRect(r, part.color);
        if (w > fm.horizontalAdvance(part.name) + 6) {
            p.setPen(part.color.lightness() > 140 ? Qt::black : Qt::white);
            p.drawText(r, Qt::AlignCenter, part.name);
        }
        x += w;
    }
    auto marker = [&](double bytes, const QString &label, const QColor &color, int row) {
        const double mx = bar.left() + bytes / scale * bar.width();
        p.setPen(QPen(color, 2));
        p.drawLine(QPointF(mx, bar.top() - 4), QPointF(mx, bar.bottom() + 6 + row * fm.height()));
        const int tw = fm.horizontalAdvance(label);
        const double tx = std::min(mx + 4, double(width() - tw - 4));
        p.drawText(QPointF(std::max(4.0, tx), bar.bottom() + 4 + (row + 1) * fm.height()), label);
    };
    if (capacity_ > 0)
        marker(capacity_, tr("GPU %1").arg(bytesText(static_cast<uint64_t>(capacity_))),
               pal.color(QPalette::Text), 0);
    if (measured_ > 0)
        marker(measured_, tr("measured %1").arg(bytesText(static_cast<uint64_t>(measured_))),
               QColor(220, 40, 40), 1);
}

} // namespace memlens
