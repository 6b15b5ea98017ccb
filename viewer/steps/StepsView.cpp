#include "steps/StepsView.h"

#include "state/ViewState.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"
#include "plots/BytesPlot.h"
#include "questions/StepsQuestion.h"

#include <algorithm>
#include <cmath>
#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>

namespace memlens {

namespace {

// Tick k is labelled with step k's iteration (a stitched run's), blank between steps.
class IterationTicker : public QCPAxisTicker {
public:
    std::vector<std::optional<int64_t>> iterations;

protected:
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override
    {
        const double k = std::round(tick);
        if (std::abs(tick - k) > 1e-6 || k < 0 || k >= double(iterations.size()) || !iterations[size_t(k)])
            return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision);
        return QString::number(*iterations[size_t(k)]);
    }
};

// Whole steps only (the default ticker put ticks at −0.5 … 2.5 on a 3-step run), further apart
// when there are many.
QSharedPointer<QCPAxisTicker> wholeStepTicker()
{
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    return ticker;
}

} // namespace

StepsView::StepsView(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    readout_ = new QLabel(this);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    readout_->setWordWrap(true);
    plot_ = newBytesPlot(this, tr("Memory"));
    plot_->xAxis->setLabel(tr("Step"));
    plot_->xAxis->setTicker(wholeStepTicker());
    plot_->legend->setVisible(true);
    // Below the plot, in rows: in the top corner it hid the highest step's label and the reserved
    // line on a short window.
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    plot_->axisRect()->insetLayout()->simplify();
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setWrap(2); // two columns fit 1024 px (three made the window 1131 px wide)
    plot_->legend->setMargins(QMargins(4, 2, 4, 2));
    peaks_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    // They stand in for the bars, under their name.
    peakEnvelope_ = plot_->addGraph();
    peakFloor_ = plot_->addGraph();
    for (QCPGraph *g : {peakEnvelope_, peakFloor_})
        g->setLineStyle(QCPGraph::lsStepLeft), g->removeFromLegend(); // a point at each pixel column's left edge
    partial_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    partial_->setName(tr("a partial step: cut by the window's start or end, or by a gap"));
    highest_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    highest_->setName(tr("the step with the highest peak"));
    for (QCPBars *bars : {peaks_, partial_, highest_})
        bars->setWidthType(QCPBars::wtPlotCoords), bars->setWidth(0.8);
    highestLabel_ = new QCPItemText(plot_);
    highestLabel_->setClipToAxisRect(false);
    endLine_ = plot_->addGraph();
    endLine_->setName(tr("allocated at the step's end"));
    endLine_->setLineStyle(QCPGraph::lsLine);
    reservedLine_ = plot_->addGraph();
    reservedLine_->setName(tr("peak reserved in the step"));
    reservedLine_->setLineStyle(QCPGraph::lsStepCenter);
    layout->addWidget(readout_);
    layout->addWidget(plot_, 1);
    plot_->setToolTip(tr("Click a step to show it on the timeline; the wheel zooms along the steps"));
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent *event) {
        if (event->button() == Qt::LeftButton)
            showStep(stepAt(event->pos()));
    });
    connect(state_, &ViewState::deviceChanged, this, &StepsView::rebuild);
    // Width and zoom decide between bars and the envelope, for the frame being drawn.
    connect(plot_, &QCustomPlot::afterLayout, this, &StepsView::followDensity);
    applyPalette();
}

void StepsView::rebuild()
{
    // The steps-and-leaks question of the device shown: what the chart draws is its answer's.
    std::optional<StepsAnswer> answer;
    if (state_->deviceData())
        answer = answerSteps(indexedDevice(state_->document(), state_->device()));
    steps_ = answer ? answer->report.summary.steps : std::vector<StepSummary>{};
    const std::vector<StepSummary> &steps = steps_;
    QVector<double> x, peak, partial, top, end, reserved;
    const size_t highest = steps.empty() ? 0 : highestStep(steps).index;
    for (size_t k = 0; k < steps.size(); ++k) {
        x << double(k);
        const bool whole = k != highest && !steps[k].partial;
        peak << (whole ? double(steps[k].peakActiveBytes) : 0.0);
        partial << (k != highest && steps[k].partial ? double(steps[k].peakActiveBytes) : 0.0);
        top << (k == highest ? double(steps[k].peakActiveBytes) : 0.0);
        end << double(steps[k].endAllocatedBytes);
        reserved << double(steps[k].peakReservedBytes);
    }
    peaks_->setData(x, peak, true);
    partial_->setData(x, partial, true);
    hasPartial_ = std::any_of(steps.begin(), steps.end(), [](const StepSummary &s) { return s.partial; });
    partial_->setVisible(hasPartial_ && !drawsEnvelope());
    highest_->setData(x, top, true);
    markGaps(steps);
    endLine_->setData(x, end, true);
    // A dot per step reads at tens of steps; at hundreds the dots only thicken the line.
    endLine_->setScatterStyle(QCPScatterStyle(steps.size() > 60 ? QCPScatterStyle::ssNone : QCPScatterStyle::ssDisc, 5));
    reservedLine_->setData(x, reserved, true);
    highestLabel_->setVisible(!steps.empty());
    if (steps.empty()) {
        // The reason names the evidence looked for: ProfilerStep#, torch.optim's marks, its frames.
        const QString why = answer ? QString::fromStdString(answer->report.summary.whyNoSteps) : QString();
        readout_->setText(why.isEmpty() ? tr("No steps.") : tr("No steps: %1.").arg(why.toHtmlEscaped()));
        plot_->replot();
        return;
    }
    uint64_t top0 = 0;
    for (const StepSummary &s : steps)
        top0 = std::max({top0, s.peakActiveBytes, s.peakReservedBytes});
    // A stitched run's steps are labelled with the iterations the job counted.
    if (steps.front().iteration) {
        auto ticker = QSharedPointer<IterationTicker>::create();
        for (const StepSummary &st : steps)
            ticker->iterations.push_back(st.iteration);
        // Few steps with gaps between: every one labelled, or a skipped iteration reads as none.
        ticker->setTickCount(steps.size() <= 24 ? std::max(5, int(steps.size())) : 8);
        plot_->xAxis->setTicker(ticker);
        plot_->xAxis->setLabel(tr("Iteration"));
    } else if (plot_->xAxis->ticker().dynamicCast<IterationTicker>()) {
        plot_->xAxis->setTicker(wholeStepTicker());
        plot_->xAxis->setLabel(tr("Step"));
    }
    plot_->xAxis->setRange(-0.7, double(steps.size()) - 0.3);
    plot_->yAxis->setRange(0, double(top0) * 1.12);
    const StepSummary &h = steps[highest];
    highestLabel_->position->setCoords(double(highest), double(h.peakActiveBytes));
    highestLabel_->setText(QString::fromStdString(stepName(h)));
    QString cut;
    if (const int n = partialStepsDrawn())
        cut += tr(" · %n partial (hatched)", "", n);
    if (!gapTexts_.empty())
        cut += tr(" · %n gap(s) between recorded iterations (dashed)", "", int(gapTexts_.size()));
    const size_t leaks = answer->report.summary.leakSuspects.size();
    cut += leaks == 1 ? tr(" · 1 leak suspect") : leaks ? tr(" · %1 leak suspects").arg(leaks) : QString();
    readout_->setText(tr("<b>%1 steps</b> · the highest peak, %2, in %3 · allocated at the end of the first step %4, of the last %5%6 · "
                         "steps from %7")
                          .arg(steps.size())
                          .arg(bytesText(h.peakActiveBytes))
                          .arg(QString::fromStdString(stepName(h)))
                          .arg(bytesText(steps.front().endAllocatedBytes), bytesText(steps.back().endAllocatedBytes), cut,
                               QString::fromStdString(std::string(stepSourceText(answer->report.summary.stepsFrom)))));
    plot_->replot();
}

void StepsView::markGaps(const std::vector<StepSummary> &steps)
{
    for (QCPItemStraightLine *line : gapLines_)
        plot_->removeItem(line);
    for (QCPItemText *text : gapTexts_)
        plot_->removeItem(text);
    gapLines_.clear();
    gapTexts_.clear();
    const bool dark = isDarkPalette(palette());
    const QColor color = dark ? QColor(200, 200, 120) : QColor(120, 100, 20);
    for (const IterationGap &gap : iterationGaps(steps)) {
        const size_t k = gap.after;
        auto *line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(double(k) - 0.5, 0);
        line->point2->setCoords(double(k) - 0.5, 1);
        line->setPen(QPen(color, 1.5, Qt::DashLine));
        auto *text = new QCPItemText(plot_);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        // Halfway up, on the plot's own background.
        text->position->setCoords(double(k) - 0.5, 0.45);
        text->setPositionAlignment(Qt::AlignVCenter | Qt::AlignHCenter);
        text->setColor(color);
        QColor back = palette().color(QPalette::Base);
        back.setAlpha(220);
        text->setBrush(back);
        text->setPadding(QMargins(3, 2, 3, 2));
        text->setText(tr("%1\nnot recorded").arg(QString::fromStdString(iterationGapText(gap))));
        gapLines_.push_back(line);
        gapTexts_.push_back(text);
    }
}

int StepsView::partialStepsDrawn() const
{
    int n = 0;
    for (auto it = partial_->data()->constBegin(); it != partial_->data()->constEnd(); ++it)
        n += it->value > 0;
    return n;
}

QStringList StepsView::gapLabels() const
{
    QStringList out;
    for (const QCPItemText *text : gapTexts_)
        out << text->text();
    return out;
}

bool StepsView::drawsEnvelope() const
{
    const double steps = plot_->xAxis->range().size();
    return steps > 0 && plot_->axisRect()->width() / steps < kMinBarPixels;
}

void StepsView::followDensity()
{
    const bool envelope = drawsEnvelope();
    // Gap labels too close to the one before are left to their dashed line.
    double lastShown = -1e9;
    for (QCPItemText *text : gapTexts_) {
        const double at = plot_->xAxis->coordToPixel(text->position->key());
        text->setVisible(at - lastShown >= kMinGapLabelPixels);
        if (text->visible())
            lastShown = at;
    }
    peaks_->setVisible(!envelope);
    partial_->setVisible(hasPartial_ && !envelope);
    peaks_->setName(envelope ? tr("peak active, per pixel: of the lowest step, of the highest (lighter)") : tr("peak active in the step"));
    peakEnvelope_->setVisible(envelope);
    peakFloor_->setVisible(envelope);
    // The highest step stays a few pixels wide however many steps share a pixel.
    highest_->setWidthType(envelope ? QCPBars::wtAbsolute : QCPBars::wtPlotCoords);
    highest_->setWidth(envelope ? kMinBarPixels : 0.8);
    // The label starts or ends at its bar near the plot's edges, instead of crossing the axis.
    const double at = plot_->xAxis->coordToPixel(highestLabel_->position->key());
    const QRect area = plot_->axisRect()->rect();
    const Qt::Alignment side = at - area.left() < 30 ? Qt::AlignLeft : area.right() - at < 30 ? Qt::AlignRight : Qt::AlignHCenter;
    highestLabel_->setPositionAlignment(Qt::AlignBottom | side);
    if (!envelope)
        return;
    const auto &steps = steps_;
    const QCPRange range = plot_->xAxis->range();
    const auto first = static_cast<size_t>(std::clamp(std::ceil(range.lower), 0.0, double(steps.size())));
    const auto last = static_cast<size_t>(std::clamp(std::floor(range.upper) + 1, 0.0, double(steps.size())));
    QVector<double> x, highest, lowest;
    long column = -1;
    for (size_t k = first; k < last; ++k) {
        const auto at = static_cast<long>(std::floor(plot_->xAxis->coordToPixel(double(k))));
        const auto bytes = double(steps[k].peakActiveBytes);
        if (at != column) {
            column = at;
            x << plot_->xAxis->pixelToCoord(double(at));
            highest << bytes;
            lowest << bytes;
        } else {
            highest.last() = std::max(highest.last(), bytes);
            lowest.last() = std::min(lowest.last(), bytes);
        }
    }
    if (!x.isEmpty()) { // the last column's right edge
        x << plot_->xAxis->pixelToCoord(double(column + 1));
        highest << highest.last();
        lowest << lowest.last();
    }
    peakEnvelope_->setData(x, highest, true);
    peakFloor_->setData(x, lowest, true);
}

QString StepsView::readout() const
{
    return readout_->text();
}

int StepsView::stepAt(const QPoint &pixel) const
{
    const auto &steps = steps_;
    const double x = plot_->xAxis->pixelToCoord(pixel.x());
    const long k = std::lround(x);
    if (!plot_->axisRect()->rect().contains(pixel) || k < 0 || k >= static_cast<long>(steps.size()) || std::abs(x - double(k)) > 0.45)
        return -1;
    return static_cast<int>(k);
}

void StepsView::showStep(int index)
{
    const auto &steps = steps_;
    if (index < 0 || index >= static_cast<int>(steps.size()))
        return;
    const StepSummary &s = steps[static_cast<size_t>(index)];
    state_->zoomTo(state_->rangeOfEvents(s.firstEvent, s.lastEvent));
    emit showTimeline();
}

void StepsView::applyPalette()
{
    applyPlotPalette(plot_, palette());
    plot_->legend->setBorderPen(Qt::NoPen); // below the plot: a frame at the window's edge read as cut off
    const bool dark = isDarkPalette(palette());
    const QColor bar = dark ? QColor(90, 140, 220) : QColor(70, 120, 200);
    const QColor hot = dark ? QColor(255, 120, 120) : QColor(200, 40, 40);
    peaks_->setBrush(bar);
    peaks_->setPen(Qt::NoPen);
    partial_->setBrush(QBrush(bar, Qt::BDiagPattern));
    partial_->setPen(QPen(bar, 1));
    const QColor light = dark ? bar.darker(170) : bar.lighter(150);
    peakEnvelope_->setBrush(light);
    peakEnvelope_->setPen(QPen(light, 1));
    peakFloor_->setBrush(bar);
    peakFloor_->setPen(QPen(bar, 1));
    highest_->setBrush(hot);
    highest_->setPen(Qt::NoPen);
    highestLabel_->setColor(hot);
    endLine_->setPen(QPen(dark ? QColor(120, 220, 140) : QColor(20, 140, 60), 2));
    reservedLine_->setPen(QPen(dark ? QColor(255, 170, 120) : QColor(200, 90, 30), 1.5, Qt::DashLine));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void StepsView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
    QWidget::changeEvent(event);
}

} // namespace memlens
