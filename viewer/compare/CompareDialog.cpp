#include "compare/CompareDialog.h"

#include "state/ScreenFit.h"
#include "index/Moment.h"
#include "questions/DiffQuestion.h"
#include "questions/QuestionError.h"
#include "compare/RunNames.h"
#include "compare/RunOverlayView.h"
#include "jobs/DocumentLoader.h"
#include "style/ByteText.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace memlens {

CompareDialog::CompareDialog(std::shared_ptr<const Document> a, int device, QWidget *parent)
    : QDialog(parent), a_(std::move(a)), device_(device), overlay_(new RunOverlayView(this)), loader_(new DocumentLoader(this)),
      loaderA_(new DocumentLoader(this))
{
    setWindowTitle(tr("Compare snapshots — memlens"));
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    at_ = new QComboBox(this);
    for (const Moment m : {Moment::peak(), Moment::oom(), Moment::end()})
        at_->addItem(QString::fromStdString(m.text()), QString::fromStdString(m.text()));
    bar->addWidget(new QLabel(tr("Live at"), this));
    bar->addWidget(at_);
    bar->addStretch();
    totals_ = new QLabel(tr("Choose a snapshot to compare with."), this);
    totals_->setWordWrap(true);
    table_ = new QTableWidget(0, 4, this);
    table_->setHorizontalHeaderLabels({tr("Call site"), tr("A"), tr("B"), tr("Change")});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setTabKeyNavigation(false); // Tab moves on to the next control, not the next cell
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto *detail = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addLayout(bar);
    detailLayout->addWidget(totals_);
    detailLayout->addWidget(table_, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(overlay_);
    split->addWidget(detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({540, 360});
    layout->addWidget(split);
    fitOnScreen(this, QSize(1200, 900), parentWidget());
    connect(at_, &QComboBox::currentIndexChanged, this, &CompareDialog::refresh);
    connect(loader_, &DocumentLoader::progress, this, [this](double f, const QString &stage) {
        totals_->setText(tr("%1 B… %2 %").arg(stage).arg(qRound(f * 100)));
    });
    connect(loader_, &DocumentLoader::documentReady, this, &CompareDialog::setOther);
    connect(loader_, &DocumentLoader::failed, this, [this](const QString &message) { totals_->setText(message); });
    connect(loaderA_, &DocumentLoader::failed, this, [this](const QString &message) { totals_->setText(message); });
    connect(loaderA_, &DocumentLoader::documentReady, this, [this](std::shared_ptr<const Document> a) {
        a_ = std::move(a);
        setOther(b_);
    });
}

void CompareDialog::compareWith(const QString &path)
{
    loader_->load(path, StopAfter::Document);
}

void CompareDialog::setOther(std::shared_ptr<const Document> b)
{
    b_ = std::move(b);
    overlay_->setRuns(a_, device_, b_, deviceB());
    refresh();
}

void CompareDialog::compareFiles(const QString &a, int deviceA, const QString &b, int deviceB)
{
    device_ = deviceA;
    deviceB_ = deviceB;
    a_.reset();
    b_.reset();
    loaderA_->load(a, StopAfter::Document);
    loader_->load(b, StopAfter::Document);
}

int CompareDialog::deviceB() const
{
    if (deviceB_)
        return *deviceB_;
    return b_ ? b_->deviceMatching(device_) : device_;
}

QString CompareDialog::totalsText() const
{
    return totals_->text();
}

void CompareDialog::refresh()
{
    table_->setRowCount(0);
    if (!a_ || !b_)
        return;
    const DeviceData *da = a_->device(device_), *db = b_->device(deviceB());
    if (!da || !db) {
        totals_->setText(tr("B has no device to compare with"));
        return;
    }
    DiffRequest request;
    request.at = Moment::parse(at_->currentData().toString().toStdString()).value_or(Moment::end());
    DiffAnswer answer;
    try {
        answer = answerDiff(indexedDevice(a_, device_), indexedDevice(b_, deviceB()), request);
    } catch (const QuestionError &e) { // as MCP's diff words it
        totals_->setText(QString::fromStdString(toolText(e)));
        return;
    }
    const std::vector<SiteDiff> &sites = answer.diff.sites;
    const auto [nameA, nameB] = distinguishingNames(QString::fromStdString(a_->path), QString::fromStdString(b_->path));
    totals_->setText(tr("A: %1 (%2) · B: %3 (%4) · %5 call sites differ")
                         .arg(bytesText(answer.diff.a.liveAtPoint), nameA, bytesText(answer.diff.b.liveAtPoint), nameB)
                         .arg(sites.size()));
    table_->setRowCount(static_cast<int>(sites.size()));
    for (int r = 0; r < static_cast<int>(sites.size()); ++r) {
        const SiteDiff &s = sites[static_cast<size_t>(r)];
        const QStringList cells = {QString::fromStdString(s.site), bytesText(uint64_t(s.bytesA)),
                                   bytesText(uint64_t(s.bytesB)),
                                   signedBytesText(s.change())};
        for (int col = 0; col < 4; ++col) {
            auto *item = new QTableWidgetItem(cells[col]);
            if (col > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(r, col, item);
        }
    }
}

} // namespace memlens
