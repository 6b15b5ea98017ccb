#include "units/UnitsPage.h"

#include "plots/BinaryBytesTicker.h"
#include "plots/DeferredPlot.h"
#include "state/RefreshWhenShown.h"
#include "state/ViewState.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace memlens {

namespace {

QString sourceText(UnitSource source)
{
    return source == UnitSource::FsdpMarks ? QObject::tr("FSDP's own marks (FSDP::pre_forward … post_forward of each unit)")
                                           : QObject::tr("record_function ranges named by module path");
}

// Whether the run's setup (the advice's reading of an FSDP rank) says unit `name` is a layer
// run under checkpoint.
bool checkpointedUnit(const DeviceData &d, const std::string &name)
{
    if (!d.advice.sharded)
        return false;
    const auto &units = d.advice.sharded->units;
    return std::any_of(units.begin(), units.end(), [&](const GatheredUnit &u) { return u.name == name && u.layer && u.checkpointed; });
}

} // namespace

UnitsPage::UnitsPage(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    readout_ = new QLabel(this);
    readout_->setWordWrap(true);
    readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    plot_ = new DeferredPlot(this);
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BinaryBytesTicker));
    plot_->xAxis->setLabel(tr("Live bytes made in the unit"));
    plot_->yAxis->setRangeReversed(true); // the first unit to run on top
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerText));
    plot_->yAxis->grid()->setVisible(false);
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    auto bars = [this](const QString &name) {
        auto *b = new QCPBars(plot_->yAxis, plot_->xAxis);
        b->setName(name);
        b->setWidth(0.75);
        b->setPen(Qt::NoPen);
        return b;
    };
    plain_ = bars(tr("made in the unit"));
    checkpointed_ = bars(tr("made in a layer run under checkpoint"));
    outside_ = bars(tr("made outside every unit"));
    beforeTrace_ = bars(tr("made before the trace"));
    layout->addWidget(readout_);
    layout->addWidget(plot_, 1);
    plot_->setToolTip(tr("Click a bar to list that unit's allocations on the Live page"));
    connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent *event) {
        int32_t unit = 0;
        if (event->button() != Qt::LeftButton || !unitAt(event->pos(), unit))
            return;
        const DeviceData *d = state_->deviceData();
        const QString name = unit == ModuleUnits::kBeforeTrace ? tr("made before the trace")
                             : unit == ModuleUnits::kOutside || !d ? tr("outside every unit")
                                                                   : QString::fromStdString(d->summary.units->names()[size_t(unit)]);
        emit showUnitAllocations(unit, name);
    });
    connect(state_, &ViewState::selectedEventChanged, new RefreshWhenShown(this, [this] { rebuild(); }), &RefreshWhenShown::request);
    connect(state_, &ViewState::deviceChanged, this, &UnitsPage::rebuild);
    connect(state_, &ViewState::documentChanged, this, &UnitsPage::rebuild);
    applyPalette();
}

bool UnitsPage::unitAt(const QPoint &pixel, int32_t &unit) const
{
    const double key = plot_->yAxis->pixelToCoord(pixel.y());
    const long row = std::lround(key);
    if (row < 0 || row >= long(rowUnits_.size()) || std::abs(key - double(row)) > 0.4 || !plot_->axisRect()->rect().contains(pixel))
        return false;
    unit = rowUnits_[size_t(row)];
    return true;
}

QString UnitsPage::readout() const
{
    return readout_->text();
}

void UnitsPage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void UnitsPage::applyPalette()
{
    applyPlotPalette(plot_, palette());
    const bool dark = isDarkPalette(palette());
    plain_->setBrush(dark ? QColor(0x5b, 0x9b, 0xd5) : QColor(0x2f, 0x6d, 0xb0));
    checkpointed_->setBrush(dark ? QColor(0x8f, 0xc9, 0x8a) : QColor(0x4c, 0x9a, 0x48));
    outside_->setBrush(dark ? QColor(0x80, 0x80, 0x80) : QColor(0xa8, 0xa8, 0xa8));
    beforeTrace_->setBrush(QBrush(dark ? QColor(0x80, 0x80, 0x80) : QColor(0xa8, 0xa8, 0xa8), Qt::BDiagPattern));
    plot_->replot();
}

void UnitsPage::rebuild()
{
    const DeviceData *d = state_->deviceData();
    for (QCPBars *b : {plain_, checkpointed_, outside_, beforeTrace_})
        b->data()->clear();
    rowUnits_.clear();
    plot_->clearItems();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(plot_->yAxis->ticker());
    ticker->clear();
    // No units: the message alone (an empty chart drew under it).
    plot_->setVisible(d && d->summary.units);
    if (!d || !d->summary.units) {
        readout_->setText(tr("No unit marks in this file: memory by unit needs FSDP's hook marks or record_function ranges named by module path."));
        return;
    }
    const ModuleUnits &units = *d->summary.units;
    const TracePoint at = state_->cursorPoint(d->index->peak());
    const std::vector<UnitBytes> bytes = units.bytesAt(*d->index, at);
    uint64_t inUnits = 0, outside = 0, before = 0, largest = 0;
    size_t unitRows = 0;
    for (const UnitBytes &u : bytes) {
        const double row = double(rowUnits_.size());
        const auto name = std::find(units.names().begin(), units.names().end(), u.unit);
        rowUnits_.push_back(u.beforeTrace ? ModuleUnits::kBeforeTrace : u.unit.empty() ? ModuleUnits::kOutside : int32_t(name - units.names().begin()));
        (u.beforeTrace ? before : u.unit.empty() ? outside : inUnits) += u.bytes;
        unitRows += !u.unit.empty();
        largest = std::max(largest, u.bytes);
        QCPBars *target = u.beforeTrace ? beforeTrace_ : u.unit.empty() ? outside_ : checkpointedUnit(*d, u.unit) ? checkpointed_ : plain_;
        target->addData(row, double(u.bytes));
        ticker->addTick(row, u.beforeTrace ? tr("(made before the trace)") : u.unit.empty() ? tr("(outside every unit)") : QString::fromStdString(u.unit));
        auto *value = new QCPItemText(plot_);
        value->position->setCoords(double(u.bytes), row);
        value->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        value->setPadding(QMargins(4, 0, 0, 0));
        value->setText(bytesText(u.bytes));
        value->setColor(palette().color(QPalette::WindowText));
        QFont small = value->font();
        small.setPointSizeF(rowUnits_.size() > 40 ? 6.5 : 7.5);
        value->setFont(small);
    }
    for (QCPBars *b : {checkpointed_, beforeTrace_}) {
        b->setVisible(!b->data()->isEmpty());
        b->removeFromLegend();
        if (b->visible())
            b->addToLegend();
    }
    plot_->yAxis->setRange(-0.6, double(rowUnits_.size()) - 0.4);
    plot_->xAxis->setRange(0, double(largest) * 1.12 + 1); // room for the last bar's figure
    QFont font = plot_->yAxis->tickLabelFont();
    font.setPointSizeF(rowUnits_.size() > 40 ? 6.5 : 8);
    plot_->yAxis->setTickLabelFont(font);
    readout_->setText(tr("<b>Memory by unit after %1</b>%2: %3 units hold %4 made in them; %5 was made in the trace outside every unit, "
                         "%6 before the trace (which unit made it is not recorded). Units from %7. "
                         "Click a bar to list the unit's allocations on the Live page.")
                          .arg(pointLabel(*d->index, at), at == d->index->peak() ? tr(" (the peak)") : QString())
                          .arg(unitRows)
                          .arg(bytesText(inUnits), bytesText(outside), bytesText(before), sourceText(units.source())));
    plot_->replot();
}

} // namespace memlens
