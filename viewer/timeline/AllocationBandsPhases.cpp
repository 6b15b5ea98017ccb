// The timeline's phase strip: record_function phases labelled along the top, or one strip per
// training step when phases would be slivers (a file of its own beside the bands' drawing).
#include "timeline/AllocationBandsPlottable.h"
#include "state/ViewState.h"
#include "notes/NotePainter.h"
#include "style/AllocationText.h"
#include "style/BandColors.h"
#include "style/ByteText.h"
#include "timeline/GapBreaks.h"
#include "timeline/StepLabelStride.h"
#include <algorithm>
#include <cmath>

namespace memlens {

void AllocationBandsPlottable::drawPhases(QCPPainter *painter, const QRect &area)
{
    const DeviceSummary &summary = device()->summary;
    const EventTable &ev = device()->index->events();
    if ((summary.phases.empty() && summary.steps.empty()) || ev.count() == 0)
        return;
    // The visible stretch of time: phases outside it cost one comparison each.
    const int64_t tA = ev.timeUs[axis().eventAt(mKeyAxis->pixelToCoord(area.left())).index()];
    const int64_t tB = ev.timeUs[axis().eventAt(mKeyAxis->pixelToCoord(area.right())).index()];
    const QFontMetrics fm(painter->font());
    const int h = fm.height() + 4;
    auto pixelOf = [&](int64_t t) { return mKeyAxis->coordToPixel(axis().xOfTime(t)); };
    auto strip = [&](double xa, double xb, const QColor &fill, const QString &text) {
        const QRectF label(QPointF(xa, area.top()), QPointF(xb, area.top() + h));
        painter->setPen(Qt::NoPen);
        painter->setBrush(fill);
        painter->drawRect(label);
        // Only what fits is labelled.
        if (!text.isEmpty() && fm.horizontalAdvance(text) + 6 <= label.width()) {
            painter->setPen(Qt::black);
            painter->drawText(label, Qt::AlignCenter, text);
        }
    };

    // Many steps in view: phases would be slivers and their shades a wash, so each step gets a
    // strip of its own (alternating shades) and the plot stays unshaded. So do steps at any zoom
    // whose phases do not delimit them: none at all (steps from the optimizer's frames), or
    // only torch.optim's Optimizer.step# marks.
    const auto &steps = summary.steps;
    size_t visibleSteps = 0;
    for (const StepSummary &st : steps)
        visibleSteps += st.endUs >= tA && st.startUs <= tB;
    const bool phasesShowSteps = summary.stepsFrom == StepSource::ProfilerStep || summary.stepsFrom == StepSource::Marks;
    if (visibleSteps > 0 && (!phasesShowSteps || area.width() / static_cast<double>(visibleSteps) < kMinPixelsPerStepForPhases)) {
        const double perStep = area.width() / static_cast<double>(visibleSteps);
        if (perStep < 6) {
            strip(area.left(), area.right(), dark_ ? QColor(70, 90, 120) : QColor(200, 215, 235),
                  tr("%1 steps (zoom in to see each step, then its phases)").arg(visibleSteps));
            return;
        }
        // Numbers wider than the steps go on every k-th step, centred on it.
        const double labelWidth = fm.horizontalAdvance(QString::number(steps.back().index)) + 6;
        const int64_t stride = stepLabelStride(perStep, labelWidth);
        for (const StepSummary &st : steps) {
            if (st.endUs < tA || st.startUs > tB)
                continue;
            const double xa = std::max<double>(pixelOf(st.startUs), area.left());
            const double xb = std::min<double>(pixelOf(st.endUs), area.right());
            const QColor fill = st.index % 2 ? (dark_ ? QColor(60, 80, 110) : QColor(190, 205, 230))
                                             : (dark_ ? QColor(85, 110, 150) : QColor(215, 228, 245));
            strip(xa, xb, fill, QString());
            const double centre = (xa + xb) / 2;
            // Whole labels only: one cut by the plot's edge reads as another number.
            if (stride > 0 && st.index % stride == 0 && centre - labelWidth / 2 >= area.left() && centre + labelWidth / 2 <= area.right()) {
                painter->setPen(dark_ ? QColor(235, 240, 250) : Qt::black);
                painter->drawText(QRectF(centre - labelWidth / 2, area.top(), labelWidth, h), Qt::AlignCenter, QString::number(st.index));
            }
        }
        return;
    }
    // Each phase gets its labelled strip and a thin line where it starts. Not a translucent
    // shade over the plot: blending ~90 full-height rectangles took 9 ms of a frame, and the
    // shades washed the bands out.
    for (const PhaseRange &p : summary.phases) {
        if (!p.startUs || *p.startUs > tB || (p.endUs && *p.endUs < tA))
            continue;
        const double xa = std::max<double>(pixelOf(*p.startUs), area.left());
        const double xb = std::min<double>(p.endUs ? pixelOf(*p.endUs) : area.right(), area.right());
        if (xb <= xa)
            continue;
        const QColor c = bandColor(std::hash<std::string>{}(p.name));
        if (xa > area.left()) {
            QColor line = c;
            line.setAlpha(dark_ ? 150 : 120);
            painter->setPen(QPen(line, 1));
            painter->drawLine(QLineF(xa, area.top() + h, xa, area.bottom()));
        }
        const QString name = fm.elidedText(QString::fromStdString(p.name), Qt::ElideRight, static_cast<int>(xb - xa) - 6);
        strip(xa, xb, c.lighter(dark_ ? 90 : 115), name.size() > 1 ? name : QString());
    }
}

} // namespace memlens
