#include "compare/RunOverlayView.h"

#include "compare/RunNames.h"
#include "style/ByteText.h"
#include "style/PlotPalette.h"
#include "plots/BytesPlot.h"

#include <cmath>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <qcustomplot.h>
#include <QVBoxLayout>

namespace memlens {

namespace {

constexpr int kColumns = 1200; // samples across the axis, about one per pixel of a wide window
const QColor kColorA(78, 121, 167);
const QColor kColorB(242, 142, 44);

} // namespace

RunOverlayView::RunOverlayView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    title_ = new QLabel(this);
    title_->setTextFormat(Qt::RichText);
    title_->setWordWrap(true); // a long headline wraps, not widens the window past a small screen
    align_ = new QComboBox(this);
    align_->addItem(tr("Align by time"), int(OverlayAlignment::Time));
    align_->addItem(tr("Align by event"), int(OverlayAlignment::Event));
    align_->addItem(tr("Align by step"), int(OverlayAlignment::Step));
    align_->setCurrentIndex(2);
    align_->setToolTip(tr("Step: step i of A over step i of B, each step one unit wide"));
    bar->addWidget(title_, 1);
    bar->addWidget(align_);
    plot_ = newBytesPlot(this, tr("Memory"));
    plot_->legend->setVisible(true);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst); // one row in the headroom above the lines
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot_->setMinimumHeight(300);
    categories_ = new QLabel(this);
    categories_->setTextFormat(Qt::RichText);
    categories_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    categories_->setWordWrap(true);
    layout->addLayout(bar);
    layout->addWidget(plot_, 1);
    layout->addWidget(categories_);
    connect(align_, &QComboBox::currentIndexChanged, this, &RunOverlayView::refresh);
}

void RunOverlayView::setRuns(std::shared_ptr<const Document> a, int deviceA, std::shared_ptr<const Document> b, int deviceB)
{
    a_ = std::move(a);
    b_ = std::move(b);
    deviceA_ = deviceA;
    deviceB_ = deviceB;
    refresh();
}

void RunOverlayView::setAlignment(OverlayAlignment alignment)
{
    align_->setCurrentIndex(align_->findData(int(alignment)));
}

QString RunOverlayView::titleText() const
{
    return title_->text();
}

OverlayAlignment RunOverlayView::alignment() const
{
    return static_cast<OverlayAlignment>(align_->currentData().toInt());
}

const DeviceData *RunOverlayView::deviceA() const
{
    return a_ ? a_->device(deviceA_) : nullptr;
}

const DeviceData *RunOverlayView::deviceB() const
{
    return b_ ? b_->device(deviceB_) : nullptr;
}

QString RunOverlayView::categoryText() const
{
    return categories_->text();
}

void RunOverlayView::refresh()
{
    plot_->clearGraphs();
    applyPlotPalette(plot_, palette());
    const DeviceData *da = deviceA(), *db = deviceB();
    if (!da || !db) {
        title_->setText(tr("Choose a second run to compare with."));
        categories_->clear();
        plot_->replot();
        return;
    }
    const RunOverlay o = overlayRuns({da->index.get(), &da->summary.steps}, {db->index.get(), &db->summary.steps}, alignment(), kColumns);
    const auto [nameA, nameB] = distinguishingNames(QString::fromStdString(a_->path), QString::fromStdString(b_->path));
    // The headline in words: how B's peaks differ from A's.
    auto change = [](uint64_t a, uint64_t b) {
        if (a == b)
            return tr("the same");
        const QString by = bytesText(b > a ? b - a : a - b);
        return (b > a ? tr("%1 more") : tr("%1 less")).arg(by) + (a ? QStringLiteral(" (%1%2 %)").arg(b > a ? "+" : "−").arg(std::abs(100.0 * (double(b) - double(a)) / double(a)), 0, 'f', 1) : QString());
    };
    title_->setText(tr("<b>A</b> %1 · <b>B</b> %2 — B peaks at %3 active against A's %5: <b>%4</b>; reserved %6 → %7: <b>%8</b>")
                        .arg(nameA.toHtmlEscaped(), nameB.toHtmlEscaped(), bytesText(db->summary.peakActiveBytes),
                             change(da->summary.peakActiveBytes, db->summary.peakActiveBytes), bytesText(da->summary.peakActiveBytes),
                             bytesText(da->summary.peakReservedBytes), bytesText(db->summary.peakReservedBytes),
                             change(da->summary.peakReservedBytes, db->summary.peakReservedBytes)));
    // A run without steps cannot be aligned by step: the menu says what is drawn.
    if (o.alignment != alignment()) {
        const QSignalBlocker blocker(align_);
        align_->setCurrentIndex(align_->findData(int(o.alignment)));
        title_->setText(title_->text() + tr(" (no steps in one run: aligned by event)"));
    }
    auto addGraph = [&](const std::vector<std::optional<uint64_t>> &values, const QColor &color, bool dashed, const QString &name) {
        QCPGraph *g = plot_->addGraph();
        QVector<double> x, y;
        for (size_t c = 0; c < values.size(); ++c) {
            x << o.columnX(c, values.size());
            y << (values[c] ? static_cast<double>(*values[c]) : std::nan("")); // a gap where the run has no event
        }
        g->setData(x, y, true);
        g->setName(name);
        g->setPen(QPen(color, dashed ? 1 : 2, dashed ? Qt::DashLine : Qt::SolidLine));
        return g;
    };
    QCPGraph *activeA = addGraph(o.a.active, kColorA, false, tr("A active"));
    QCPGraph *activeB = addGraph(o.b.active, kColorB, false, tr("B active"));
    addGraph(o.a.reserved, kColorA, true, tr("A reserved"));
    addGraph(o.b.reserved, kColorB, true, tr("B reserved"));
    QColor gap = palette().color(QPalette::Text);
    gap.setAlpha(45);
    activeA->setBrush(gap);
    activeA->setChannelFillGraph(activeB);
    const char *unit[] = {"Time since the first entry (s)", "Event", "Step"};
    plot_->xAxis->setLabel(tr(unit[int(o.alignment)]));
    plot_->xAxis->setRange(0, o.xMax);
    plot_->yAxis->setRange(0, static_cast<double>(std::max({da->summary.peakReservedBytes, db->summary.peakReservedBytes,
                                                            da->summary.peakActiveBytes, db->summary.peakActiveBytes})) * 1.2);
    plot_->replot();

    QString table = tr("<table cellspacing=6><tr><th align=left>At each run's peak</th><th align=right>A</th><th align=right>B</th>"
                       "<th align=right>change</th></tr>");
    for (int c = 0; c < kCategoryCount; ++c) {
        const uint64_t a = da->summary.categoryBytesAtPeak[static_cast<size_t>(c)], b = db->summary.categoryBytesAtPeak[static_cast<size_t>(c)];
        if (!a && !b)
            continue;
        table += QString("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td></tr>")
                     .arg(QString::fromStdString(std::string(categoryLabel(static_cast<Category>(c)))), bytesText(a), bytesText(b),
                          signedBytesText(int64_t(b) - int64_t(a)));
    }
    categories_->setText(table + "</table>");
}

} // namespace memlens
