#include "segments/WhatIfPanel.h"

#include "questions/QuestionError.h"
#include "questions/ReplayQuestion.h"
#include "replay/ReplayAdmission.h"
#include "replay/ReplayVerdict.h"
#include "state/ViewState.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"
#include "plots/BytesPlot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace memlens {

namespace {

// Reserved bytes as a staircase over event numbers: (event, bytes after it) changes. The line
// starts at event 0, inside the axis range: an SVG export does not clip it to the plot.
void setSteps(QCPGraph *graph, uint64_t start, const std::vector<std::pair<EventId, uint64_t>> &changes, double end)
{
    QVector<double> x{0}, y{double(start)};
    for (const auto &[event, bytes] : changes) {
        x << double(event.index());
        y << double(bytes);
    }
    x << end;
    y << y.back();
    graph->setData(x, y, true);
    graph->setLineStyle(QCPGraph::lsStepLeft);
}

} // namespace

WhatIfPanel::WhatIfPanel(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("What if PYTORCH_CUDA_ALLOC_CONF were"), this));
    conf_ = new QComboBox(this);
    conf_->setEditable(true);
    conf_->setInsertPolicy(QComboBox::NoInsert);
    conf_->setMinimumContentsLength(28);
    conf_->addItem(tr("(the recorded setting)"), QString());
    for (const char *c : {"expandable_segments:True", "max_split_size_mb:128", "max_split_size_mb:512", "roundup_power2_divisions:4",
                          "garbage_collection_threshold:0.8"})
        conf_->addItem(QString::fromLatin1(c), QString::fromLatin1(c));
    conf_->setToolTip(tr("Pick a setting or type one (Enter): the trace is replayed through a model of torch's caching allocator"));
    bar->addWidget(conf_, 1);
    summary_ = new QLabel(this);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    summary_->setWordWrap(true);
    layout->addLayout(bar);
    layout->addWidget(summary_);
    fitSummary();
    plot_ = newBytesPlot(this, tr("Reserved"));
    // Tall enough for its axis titles at 1024 × 700; the legend at the top left, away from the
    // end of the run, where a predicted OOM is drawn.
    plot_->setMinimumHeight(200);
    plot_->xAxis->setLabel(tr("Event"));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    plot_->addGraph()->setName(tr("recorded"));
    plot_->addGraph()->setName(tr("predicted"));
    applyPlotPalette(plot_, palette());
    layout->addWidget(plot_, 1);

    connect(conf_, &QComboBox::activated, this, [this] { start(); });
    connect(conf_->lineEdit(), &QLineEdit::returnPressed, this, [this] { start(); });
    connect(state_, &ViewState::deviceChanged, this, &WhatIfPanel::rebuild);
    connect(state_, &ViewState::whatIfChanged, this, &WhatIfPanel::showResult);
}

WhatIfPanel::~WhatIfPanel() = default;

void WhatIfPanel::setConfig(const QString &conf)
{
    const int i = conf_->findData(conf);
    if (i >= 0)
        conf_->setCurrentIndex(i);
    else
        conf_->setEditText(conf);
    start();
}

QString WhatIfPanel::summaryText() const
{
    return summary_->text();
}

void WhatIfPanel::rebuild()
{
    jobs_.stop();
    replaying_ = false;
    drawRecorded();
    plot_->graph(1)->data()->clear();
    summary_->setText(tr("Pick a setting to see the reserved memory torch's allocator would have needed."));
    const std::optional<std::string> why = notReplayable();
    if (why)
        summary_->setText(tr("No replay here: %1.").arg(QString::fromStdString(*why).toHtmlEscaped()));
    conf_->setEnabled(!why);
    plot_->replot();
}

void WhatIfPanel::drawRecorded()
{
    plot_->clearItems();
    const DeviceData *d = state_->deviceData();
    if (!d) {
        plot_->graph(0)->data()->clear();
        return;
    }
    const DeviceIndex &index = *d->index;
    const auto changes = index.reservedChanges();
    setSteps(plot_->graph(0), index.startReservedBytes(), {changes.begin(), changes.end()}, double(index.eventCount()));
    plot_->graph(0)->setPen(QPen(palette().color(QPalette::Text), 1.5, Qt::DashLine));
    plot_->xAxis->setRange(-1, double(std::max<size_t>(index.eventCount(), 1)));
    plot_->yAxis->setRange(0, double(index.peakReservedBytes()) * 1.15 + 1);
}

std::optional<std::string> WhatIfPanel::notReplayable() const
{
    const DeviceData *d = state_->deviceData();
    if (!d)
        return std::nullopt;
    return whyNotReplayable(*state_->document()->snapshot, d->index->device());
}

void WhatIfPanel::start()
{
    const DeviceData *d = state_->deviceData();
    if (!d || notReplayable())
        return;
    QString text = conf_->currentText().trimmed();
    if (conf_->currentIndex() >= 0 && conf_->itemText(conf_->currentIndex()) == text)
        text = conf_->currentData().toString();
    // The question `memlens replay` and MCP's replay ask (questions/ReplayQuestion), refused alike.
    ReplayRequest request;
    request.device = state_->device();
    if (!text.isEmpty())
        request.allocConf = text.toStdString();
    std::optional<AllocatorConfig> admitted;
    try {
        admitted = admitReplayRequest(request);
    } catch (const QuestionError &e) {
        summary_->setText(QString::fromStdString(e.what()).toHtmlEscaped());
        return;
    }
    state_->setWhatIf(nullptr);
    replaying_ = true;
    summary_->setText(tr("Replaying %1 events…").arg(d->index->eventCount()));
    // The worker holds the document it replays; a newer device or document stops it first.
    jobs_.start([this, request, admitted, document = state_->document(), device = state_->device()](const Job &job) {
        std::shared_ptr<const ReplayResult> result;
        try {
            const DeviceData &data = *document->device(device);
            result = std::make_shared<const ReplayResult>(
                answerReplay(document->path, *document->snapshot, *data.index, request, admitted, job.cancelFlag()).result);
        } catch (const ReplayCancelled &) {
            return;
        } catch (const QuestionError &e) {
            job.post([this, why = QString::fromStdString(e.what())] {
                jobs_.finish();
                replaying_ = false;
                summary_->setText(why.toHtmlEscaped());
            });
            return;
        }
        job.post([this, result] {
            jobs_.finish();
            replaying_ = false;
            state_->setWhatIf(result);
            emit replayed();
        });
    });
}

void WhatIfPanel::showResult()
{
    const std::shared_ptr<const ReplayResult> &r = state_->whatIf();
    drawRecorded();
    if (!r) {
        plot_->graph(1)->data()->clear();
        plot_->replot();
        return;
    }
    if (const QString shown = QString::fromStdString(r->config.text()); !shown.isEmpty() && conf_->currentText() != shown) {
        const QSignalBlocker blocker(conf_);
        conf_->setEditText(shown);
    }
    const QColor accent = palette().color(QPalette::Highlight);
    setSteps(plot_->graph(1), r->startReservedBytes, r->predictedReserved,
             double(r->predicted.oomAt ? r->predicted.oomAt->index() : std::max<size_t>(state_->deviceData()->index->eventCount(), 1)));
    plot_->graph(1)->setPen(QPen(accent, 2));
    const double top = double(std::max(r->predicted.peakReservedBytes, r->recorded.peakReservedBytes));
    plot_->yAxis->setRange(0, top * 1.15 + 1);
    const QString conf = QString::fromStdString(r->config.text());
    QString text = tr("<b>%1</b>: reserved peak %2 (recorded %3), %4 segment allocations (recorded %5). ")
                       .arg(conf.isEmpty() ? tr("torch's defaults") : conf.toHtmlEscaped(), bytesText(r->predicted.peakReservedBytes),
                            bytesText(r->recorded.peakReservedBytes))
                       .arg(r->predicted.segmentAllocs.size())
                       .arg(r->recorded.segmentAllocs.size());
    const QColor red(220, 40, 40);
    if (r->predicted.oomAt) {
        auto *line = new QCPItemStraightLine(plot_);
        const double oomX = r->predicted.oomAt->index();
        line->point1->setCoords(oomX, 0);
        line->point2->setCoords(oomX, 1);
        line->setPen(QPen(red, 1.5));
        auto *label = new QCPItemText(plot_);
        label->position->setCoords(oomX, top * 1.08);
        label->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
        label->setText(tr("predicted OOM "));
        label->setColor(red);
        text += tr("<span style='color:%1'><b>Predicted OOM at event %2</b></span>").arg(red.name()).arg(r->predicted.oomAt->index());
    } else {
        const QString verdict = QString::fromStdString(replayVerdict(*r));
        text += (verdict.left(1).toUpper() + verdict.mid(1)).toHtmlEscaped() + ".";
    }
    if (r->fromFirstEntry)
        text += tr(" Started from the state at the first entry (the trace was cut).");
    text += tr(" The timeline draws it too.");
    summary_->setText(text);
    fitSummary();
    plot_->replot();
}

void WhatIfPanel::fitSummary()
{
    // Two lines at least (a result's usual length), so the first layout already leaves room.
    const int height = std::max(2 * summary_->fontMetrics().lineSpacing(), summary_->heightForWidth(summary_->width()));
    if (height != summary_->minimumHeight())
        summary_->setMinimumHeight(height);
}

void WhatIfPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitSummary();
}

} // namespace memlens
