#include "ranks/RankStepHeatmap.h"

#include "style/ByteText.h"
#include "style/PlotPalette.h"

#include <algorithm>
#include <cmath>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace memlens {

namespace {

// From the background (no memory) to a deep blue (the highest peak), so the heaviest cells
// read as the darkest in the light theme and the brightest in the dark one.
QColor heatColor(double share, bool dark)
{
    const QColor low = dark ? QColor(40, 48, 64) : QColor(232, 240, 250);
    const QColor high = dark ? QColor(120, 190, 255) : QColor(20, 70, 160);
    const double t = std::clamp(share, 0.0, 1.0);
    auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
    return QColor(mix(low.red(), high.red()), mix(low.green(), high.green()), mix(low.blue(), high.blue()));
}

} // namespace

RankStepHeatmap::RankStepHeatmap(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(120);
    setAccessibleName(tr("Peak active memory per rank and step"));
}

void RankStepHeatmap::setGrid(RankStepGrid grid, std::vector<RankFigures> figures)
{
    grid_ = std::move(grid);
    figures_ = std::move(figures);
    currentRow_ = std::min<int>(currentRow_, static_cast<int>(grid_.ranks.size()) - 1);
    currentColumn_ = std::min<int>(currentColumn_, static_cast<int>(grid_.steps.size()) - 1);
    update();
}

QRectF RankStepHeatmap::plotArea() const
{
    const QFontMetrics fm(font());
    const int left = fm.horizontalAdvance(tr("rank %1").arg(grid_.ranks.empty() ? 0 : grid_.ranks.back())) + 12;
    const int top = fm.height() + 8;
    return QRectF(left, top, std::max(1, width() - left - 8 - scaleWidth()), std::max(1, height() - top - fm.height() - 10));
}

int RankStepHeatmap::scaleWidth() const
{
    return kScaleGap + kScaleBar + kScaleLabelGap + QFontMetrics(font()).horizontalAdvance(bytesText(grid_.highestPeak));
}

QRectF RankStepHeatmap::scaleRect() const
{
    const QRectF area = plotArea();
    return QRectF(area.right() + kScaleGap, area.top(), kScaleBar, area.height());
}

void RankStepHeatmap::drawScale(QPainter &painter, bool dark) const
{
    const QRectF bar = scaleRect();
    const int steps = std::max(2, static_cast<int>(bar.height()));
    for (int i = 0; i < steps; ++i) {
        const double share = 1.0 - double(i) / double(steps - 1); // the top is the highest peak
        painter.fillRect(QRectF(bar.left(), bar.top() + bar.height() * i / steps, bar.width(), bar.height() / steps + 1), heatColor(share, dark));
    }
    painter.setPen(palette().color(QPalette::WindowText));
    const QRectF labels(bar.right() + kScaleLabelGap, bar.top(), width() - bar.right() - kScaleLabelGap, bar.height());
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignTop, bytesText(grid_.highestPeak));
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignBottom, QStringLiteral("0"));
}

QRectF RankStepHeatmap::cellRect(int row, int column) const
{
    const QRectF area = plotArea();
    const double w = area.width() / std::max<size_t>(1, grid_.steps.size());
    const double h = area.height() / std::max<size_t>(1, grid_.ranks.size());
    return QRectF(area.left() + column * w, area.top() + row * h, w, h);
}

std::pair<int, int> RankStepHeatmap::cellAt(QPointF point) const
{
    const QRectF area = plotArea();
    if (grid_.ranks.empty() || grid_.steps.empty() || !area.contains(point))
        return {-1, -1};
    const int column = std::min<int>(static_cast<int>((point.x() - area.left()) / area.width() * double(grid_.steps.size())), int(grid_.steps.size()) - 1);
    const int row = std::min<int>(static_cast<int>((point.y() - area.top()) / area.height() * double(grid_.ranks.size())), int(grid_.ranks.size()) - 1);
    return {row, column};
}

QString RankStepHeatmap::cellText(int row, int column) const
{
    const auto &step = grid_.steps[static_cast<size_t>(column)];
    QString text = tr("rank %1, step %2").arg(grid_.ranks[static_cast<size_t>(row)]).arg(step ? QString::number(*step) : tr("—"));
    const auto &cell = grid_.at(static_cast<size_t>(row), static_cast<size_t>(column));
    if (!cell)
        return text + tr(": no dump");
    const RankFigures &f = figures_[cell->figures];
    text += tr(": peak %1 active, %2 reserved").arg(bytesText(f.peakActiveBytes), bytesText(f.peakReservedBytes));
    if (cell->outlier)
        text += tr(" · an outlier at this step");
    if (cell->oom)
        text += tr(" · out of memory");
    return text;
}

void RankStepHeatmap::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const bool dark = isDarkPalette(palette());
    const QFontMetrics fm(font());
    const QRectF area = plotArea();
    p.setPen(palette().color(QPalette::WindowText));
    // The whole caption where it fits; in a narrow window the short one, then elided (it was cut).
    const QString full = grid_.ranks.empty()      ? tr("Peak per rank and step: summarising…")
                         : grid_.ranks.size() == 1 ? tr("Peak active per step of rank %1: each bar's height is its share of the highest; OOM red · "
                                                        "double-click to open the dumps as one run")
                                                         .arg(grid_.ranks.front())
                                                   : tr("Peak active per rank (rows) and step (columns): %1 is higher (the scale on the right); "
                                                        "outliers outlined, OOM red · double-click a rank to open its dumps as one run")
                                                         .arg(dark ? tr("brighter") : tr("darker"));
    const QString brief = grid_.ranks.size() > 1 ? tr("Peak per rank and step: %1 is higher · double-click a rank to open its dumps").arg(dark ? tr("brighter") : tr("darker"))
                                                 : full;
    const QString caption = fm.horizontalAdvance(full) <= width() ? full : fm.elidedText(brief, Qt::ElideRight, width());
    p.drawText(QRectF(0, 0, width(), fm.height() + 4), Qt::AlignLeft | Qt::AlignVCenter, caption);
    if (grid_.ranks.empty())
        return;
    drawScale(p, dark);
    const QColor outlier(240, 140, 20), oom(220, 40, 40);
    const double rowHeight = area.height() / double(grid_.ranks.size());
    const double columnWidth = area.width() / double(grid_.steps.size());
    for (size_t r = 0; r < grid_.ranks.size(); ++r) {
        for (size_t c = 0; c < grid_.steps.size(); ++c) {
            const QRectF cell = cellRect(int(r), int(c)).adjusted(0, 0, columnWidth > 4 ? -1 : 0, rowHeight > 4 ? -1 : 0);
            const auto &value = grid_.at(r, c);
            if (!value) {
                p.fillRect(cell, QBrush(palette().color(QPalette::Mid), Qt::Dense6Pattern));
                continue;
            }
            const RankFigures &f = figures_[value->figures];
            const double share = grid_.highestPeak ? double(f.peakActiveBytes) / double(grid_.highestPeak) : 0;
            if (grid_.ranks.size() == 1 && !value->oom) {
                // One rank's row would be one block of nearly the same colour: each step's peak
                // is a bar as tall as its share of the highest, over the scale's empty colour.
                p.fillRect(cell, heatColor(0, dark));
                p.fillRect(QRectF(cell.left(), cell.bottom() - cell.height() * share, cell.width(), cell.height() * share), heatColor(share, dark));
            } else {
                p.fillRect(cell, value->oom ? oom : heatColor(share, dark));
            }
            if (value->outlier) {
                p.setPen(QPen(outlier, std::min(2.0, std::max(1.0, std::min(rowHeight, columnWidth) / 4))));
                p.setBrush(Qt::NoBrush);
                p.drawRect(cell.adjusted(1, 1, -1, -1));
            }
            // The peak itself where the cell has room for it (it was on hover only), in the
            // colour that reads on the cell's own.
            const QString figure = bytesText(f.peakActiveBytes);
            if (cell.width() >= fm.horizontalAdvance(figure) + 6 && cell.height() >= fm.height() + 2) {
                const QColor fill = value->oom ? oom : heatColor(grid_.ranks.size() == 1 ? 0 : share, dark);
                p.setPen(fill.lightnessF() < 0.55 ? QColor(Qt::white) : QColor(Qt::black));
                p.drawText(cell, Qt::AlignCenter, figure);
            }
        }
    }
    p.setPen(palette().color(QPalette::WindowText));
    // Rank labels where rows are tall enough, else every k-th; step labels likewise.
    const int rankStride = std::max(1, static_cast<int>(std::ceil((fm.height() + 2) / rowHeight)));
    for (size_t r = 0; r < grid_.ranks.size(); r += size_t(rankStride)) {
        const QRectF row = cellRect(int(r), 0);
        p.drawText(QRectF(0, row.top(), area.left() - 6, std::max<double>(row.height(), fm.height())), Qt::AlignRight | Qt::AlignVCenter,
                   tr("rank %1").arg(grid_.ranks[r]));
    }
    const double labelWidth = fm.horizontalAdvance(QStringLiteral("00000")) + 6;
    const int stepStride = std::max(1, static_cast<int>(std::ceil(labelWidth / columnWidth)));
    for (size_t c = 0; c < grid_.steps.size(); c += size_t(stepStride)) {
        const QRectF column = cellRect(0, int(c));
        const auto &step = grid_.steps[c];
        p.drawText(QRectF(column.center().x() - labelWidth / 2, area.bottom() + 2, labelWidth, fm.height() + 4), Qt::AlignCenter,
                   step ? QString::number(*step) : tr("—"));
    }
    if (currentRow_ >= 0) {
        const QRectF row(area.left(), cellRect(currentRow_, 0).top(), area.width(), rowHeight);
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(row);
        // The clicked cell, whose step the overview shows, in the row's colour and heavier.
        if (currentColumn_ >= 0 && currentColumn_ < int(grid_.steps.size())) {
            p.setPen(QPen(palette().color(QPalette::Highlight), 4));
            p.drawRect(cellRect(currentRow_, currentColumn_).adjusted(1, 1, -1, -1));
        }
    }
}

void RankStepHeatmap::mousePressEvent(QMouseEvent *event)
{
    const auto [row, column] = cellAt(event->position());
    if (row < 0)
        return;
    currentRow_ = row;
    currentColumn_ = column;
    update();
    emit stepClicked(grid_.steps[static_cast<size_t>(column)], grid_.ranks[static_cast<size_t>(row)]);
}

void RankStepHeatmap::mouseDoubleClickEvent(QMouseEvent *event)
{
    const auto [row, column] = cellAt(event->position());
    if (row >= 0)
        emit rankActivated(grid_.ranks[static_cast<size_t>(row)]);
}

void RankStepHeatmap::keyPressEvent(QKeyEvent *event)
{
    const int rows = static_cast<int>(grid_.ranks.size());
    if (rows == 0)
        return QWidget::keyPressEvent(event);
    switch (event->key()) {
    case Qt::Key_Up:
        currentRow_ = std::max(0, currentRow_ - 1);
        break;
    case Qt::Key_Down:
        currentRow_ = std::min(rows - 1, currentRow_ + 1);
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (currentRow_ >= 0)
            emit rankActivated(grid_.ranks[static_cast<size_t>(currentRow_)]);
        return;
    default:
        return QWidget::keyPressEvent(event);
    }
    update();
}

bool RankStepHeatmap::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const auto [row, column] = cellAt(help->pos());
        if (row >= 0)
            QToolTip::showText(help->globalPos(), cellText(row, column), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace memlens
