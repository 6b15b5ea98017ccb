#include "ranks/RankOverviewPage.h"

#include "export/DatasetFigures.h"
#include "memory/UsableCores.h"
#include "questions/RankOverviewQuestion.h"
#include "ranks/RankChart.h"
#include "ranks/RankStepGrid.h"
#include "ranks/RankStepHeatmap.h"
#include "ranks/RankTableModel.h"
#include "ranks/RankUnitsModel.h"
#include "watch/DumpFolderWatch.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace memlens {

RankOverviewPage::RankOverviewPage(std::shared_ptr<const SnapshotCache> cache, QWidget *parent)
    : QWidget(parent), cache_(std::move(cache)), title_(new QLabel(this)), steps_(new QComboBox(this)),
      progress_(new QProgressBar(this)), compare_(new QPushButton(tr("Compare Two Ranks"), this)), chart_(new RankChart(this)),
      model_(new RankTableModel(this)), proxy_(new QSortFilterProxyModel(this)), table_(new QTableView(this)),
      unitsModel_(new RankUnitsModel(this)), unitsProxy_(new QSortFilterProxyModel(this)), unitsTable_(new QTableView(this)),
      heatmap_(new RankStepHeatmap(this))
{
    title_->setTextFormat(Qt::RichText);
    title_->setWordWrap(true);
    steps_->setToolTip(tr("The step (or iteration) whose snapshots are shown"));
    compare_->setToolTip(tr("Select two rows, then compare their timelines on one axis"));
    compare_->setEnabled(false);
    progress_->setMaximumWidth(240);
    progress_->hide();
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(Qt::UserRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(RankTableModel::Rank, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->setTabKeyNavigation(false); // Tab moves on to the next control, not the next cell
    table_->horizontalHeader()->setStretchLastSection(true);
    unitsProxy_->setSourceModel(unitsModel_);
    unitsProxy_->setSortRole(Qt::UserRole);
    unitsTable_->setModel(unitsProxy_);
    unitsTable_->setSortingEnabled(true);
    unitsTable_->sortByColumn(0, Qt::AscendingOrder);
    unitsTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    unitsTable_->verticalHeader()->hide();
    unitsTable_->setTabKeyNavigation(false);
    unitsTable_->setToolTip(tr("What each rank held at its peak by the unit that made it; a cell more than 10 % off its row's median is tinted"));
    unitsTable_->hide();
    auto *bar = new QHBoxLayout;
    bar->addWidget(title_, 1);
    bar->addWidget(progress_);
    auto *stepLabel = new QLabel(tr("&Step"), this);
    stepLabel->setBuddy(steps_); // Alt+S; and an export that hides the box hides its label
    bar->addWidget(stepLabel);
    bar->addWidget(steps_);
    bar->addWidget(compare_);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(heatmap_);
    split->addWidget(chart_);
    split->addWidget(table_);
    split->addWidget(unitsTable_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    split->setStretchFactor(3, 2);
    heatmap_->hide();
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    auto openRow = [this](const QModelIndex &proxyIndex) {
        const QModelIndex source = proxy_->mapToSource(proxyIndex);
        if (source.isValid())
            emit openRankRequested(QString::fromStdString(model_->ranks()[static_cast<size_t>(source.row())].file.path));
    };
    // `activated` alone: a double-click emits it too, and both would open the rank twice.
    connect(table_, &QTableView::activated, this, openRow);
    connect(chart_, &RankChart::rankClicked, this, [this](int row) {
        const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
        table_->selectRow(index.row());
        table_->scrollTo(index);
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { compare_->setEnabled(selectedRows().size() == 2); });
    connect(compare_, &QPushButton::clicked, this, [this] {
        const auto rows = selectedRows();
        if (rows.size() != 2)
            return;
        const RankFigures &a = model_->ranks()[rows[0]], &b = model_->ranks()[rows[1]];
        emit compareRanksRequested(QString::fromStdString(a.file.path), a.device, QString::fromStdString(b.file.path), b.device);
    });
    connect(heatmap_, &RankStepHeatmap::stepClicked, this, [this](const std::optional<int64_t> &step, int) {
        followLatest_ = false; // the user chose a step: newer dumps do not move them off it
        if (step != step_) {
            steps_->setCurrentIndex(steps_->findData(step ? QVariant(qlonglong(*step)) : QVariant()));
            showStep(step);
        }
    });
    connect(heatmap_, &RankStepHeatmap::rankActivated, this, [this](int rank) {
        if (dumpsAtHand_)
            emit openStitchedRankRequested(QString::fromStdString(folder_.folder), rank);
    });
    connect(steps_, &QComboBox::activated, this, [this](int i) {
        followLatest_ = false;
        const QVariant v = steps_->itemData(i);
        showStep(v.isNull() ? std::nullopt : std::optional<int64_t>(v.toLongLong()));
    });
}

RankOverviewPage::~RankOverviewPage() = default;

std::vector<size_t> RankOverviewPage::selectedRows() const
{
    std::vector<size_t> rows;
    for (const QModelIndex &i : table_->selectionModel()->selectedRows())
        rows.push_back(static_cast<size_t>(proxy_->mapToSource(i).row()));
    std::sort(rows.begin(), rows.end());
    return rows;
}

void RankOverviewPage::openFolder(const QString &folder, bool mayBeEmpty)
{
    if (!mayBeEmpty && isFleetDataset(folder.toStdString())) {
        openDataset(folder);
        return;
    }
    RankFolder found = findRankFiles(folder.toStdString());
    if (!mayBeEmpty)
        admitRankFolder(found);
    folder_ = std::move(found);
    dumpFigures_.clear();
    fillSteps();
    steps_->setCurrentIndex(steps_->count() - 1);
    showStep(folder_.latestStep());
    summarizeGrid();
}

void RankOverviewPage::openDataset(const QString &dataset)
{
    DatasetFigures read = readDatasetFigures(dataset.toStdString());
    folder_ = std::move(read.folder);
    dumpFigures_.clear();
    for (RankFigures &f : read.figures)
        dumpFigures_.insert_or_assign(f.file.path, std::move(f));
    dumpsAtHand_ = read.sourceAtHand;
    fillSteps();
    steps_->setCurrentIndex(steps_->count() - 1);
    showStep(folder_.latestStep()); // every figure is known: nothing is summarised
    summarizeGrid();
}

void RankOverviewPage::fillSteps()
{
    const QVariant current = steps_->currentData();
    steps_->clear();
    for (const auto &s : folder_.steps)
        steps_->addItem(s ? (QString::number(*s) + (folder_.filesOfStep(s).front().atExit ? tr(" (at exit)") : QString())) : tr("—"),
                        s ? QVariant(qlonglong(*s)) : QVariant());
    steps_->setEnabled(folder_.steps.size() > 1);
    steps_->setCurrentIndex(std::max(0, steps_->findData(current)));
    heatmap_->setVisible(folder_.steps.size() > 1);
}

void RankOverviewPage::summarizeGrid()
{
    if (folder_.steps.size() < 2)
        return;
    // The shown step's files come from the table's job while it runs (it hands them over).
    std::vector<RankFile> missing;
    for (const RankFile &f : folder_.files) {
        if (!dumpFigures_.contains(f.path) && (finished_ || f.step != step_))
            missing.push_back(f);
    }
    if (missing.empty()) {
        publishGrid();
        return;
    }
    gridJobs_.start([this, missing, cache = cache_](const Job &job) {
        RankProgress control;
        control.cancel = job.cancelFlag();
        auto figures = std::make_shared<std::vector<RankFigures>>(summarizeRanks(missing, usableCores(), cache.get(), control));
        if (job.cancelled())
            return;
        job.post([this, figures] {
            gridJobs_.finish();
            dumpsSummarised_ += figures->size();
            for (RankFigures &f : *figures)
                dumpFigures_.insert_or_assign(f.file.path, std::move(f));
            publishGrid();
        });
    });
}

std::vector<RankFigures> RankOverviewPage::knownFigures(const std::vector<RankFile> &files) const
{
    std::vector<RankFigures> figures;
    for (const RankFile &f : files) {
        if (auto it = dumpFigures_.find(f.path); it != dumpFigures_.end())
            figures.push_back(it->second);
    }
    return figures;
}

void RankOverviewPage::publishGrid()
{
    std::vector<RankFigures> figures = knownFigures(folder_.files);
    const bool complete = figures.size() == folder_.files.size();
    RankStepGrid grid = rankStepGrid(figures);
    heatmap_->setGrid(std::move(grid), std::move(figures));
    if (complete)
        emit gridSummarized();
}

void RankOverviewPage::watch(double seconds)
{
    watch_ = std::make_unique<DumpFolderWatch>(folder_.folder, std::chrono::milliseconds(static_cast<long long>(std::max(1.0, 2 * seconds) * 1000)));
    watch_->poll(); // what is there now is already shown
    if (!watchTimer_) {
        watchTimer_ = new QTimer(this);
        connect(watchTimer_, &QTimer::timeout, this, &RankOverviewPage::lookForDumps);
    }
    watchTimer_->start(static_cast<int>(seconds * 1000));
    title_->setText(headline());
}

void RankOverviewPage::lookForDumps()
{
    std::vector<RankFile> landed;
    try {
        landed = watch_->poll();
    } catch (const std::exception &) {
        return; // the folder is gone for now; keep what is shown
    }
    if (landed.empty())
        return;
    folder_ = watch_->lastScan();
    std::vector<int> ranks;
    bool shownStep = false;
    for (const RankFile &f : landed) {
        dumpFigures_.erase(f.path); // rewritten files are summarised again
        ranks.push_back(f.rank);
        shownStep = shownStep || f.step == step_;
    }
    fillSteps();
    if (followLatest_ && folder_.latestStep() != step_) {
        // Until the user picks a step, the overview follows the job: the newest step's dumps
        // (the first ones, for a folder watched from empty).
        step_ = folder_.latestStep();
        steps_->setCurrentIndex(steps_->findData(step_ ? QVariant(qlonglong(*step_)) : QVariant()));
        shownStep = true;
    }
    if (shownStep)
        showStep(step_);
    else
        title_->setText(headline());
    summarizeGrid();
    emit dumpsLanded(QString::fromStdString(folder_.folder), ranks);
}

void RankOverviewPage::showStep(const std::optional<int64_t> &step)
{
    jobs_.stop();
    step_ = step;
    const std::vector<RankFile> files = folder_.filesOfStep(step);
    // A step the heatmap has summarised already is shown from its figures.
    std::vector<RankFigures> known = knownFigures(files);
    if (known.size() == files.size()) { // a folder watched from empty has no files yet
        publish(std::move(known));
        return;
    }
    model_->setRanks({});
    chart_->setRanks({}, {});
    progress_->setRange(0, static_cast<int>(files.size()));
    progress_->setValue(0);
    progress_->show();
    finished_ = false;
    title_->setText(files.size() == 1 ? tr("Summarising 1 rank…") : tr("Summarising %1 ranks…").arg(files.size()));
    // Each result is handed over as a value; a result of an older step or folder is dropped.
    // The rank-overview question of this step alone (a step without a number is not "the latest").
    RankFolder shown = folder_;
    shown.files = files;
    shown.steps = {step};
    jobs_.start([this, shown = std::move(shown), step, cache = cache_](const Job &job) {
        RankOverviewRequest request;
        request.step = step;
        request.threads = usableCores();
        request.control.cancel = job.cancelFlag();
        request.control.progress = [this, &job](size_t done, size_t) { job.post([this, done] { progress_->setValue(static_cast<int>(done)); }); };
        auto ranks = std::make_shared<std::vector<RankFigures>>(answerRankOverview(shown, request, cache.get()).ranks);
        if (job.cancelled())
            return;
        job.post([this, ranks] {
            dumpsSummarised_ += ranks->size();
            publish(std::move(*ranks));
        });
    });
}

void RankOverviewPage::publish(std::vector<RankFigures> ranks)
{
    jobs_.finish();
    finished_ = true;
    progress_->hide();
    // The heatmap takes the figures too, instead of summarising the same files again.
    for (const RankFigures &f : ranks)
        dumpFigures_.insert_or_assign(f.file.path, f);
    if (folder_.steps.size() > 1)
        publishGrid();
    model_->setRanks(std::move(ranks));
    chart_->setRanks(model_->ranks(), model_->comparison());
    table_->resizeColumnsToContents();
    unitsModel_->setRanks(model_->ranks());
    unitsTable_->setVisible(!unitsModel_->empty());
    unitsTable_->resizeColumnsToContents();
    title_->setText(headline());
    emit summarized();
}

QString RankOverviewPage::headline() const
{
    const RankComparison &c = model_->comparison();
    const size_t ranks = model_->ranks().size();
    const QString folder = QDir::toNativeSeparators(QString::fromStdString(folder_.folder)).toHtmlEscaped();
    QString text = ranks == 0 ? tr("<b>%1</b>: no dumps yet").arg(folder)
                   : ranks == 1 ? tr("<b>%1</b>: 1 rank").arg(folder)
                                : tr("<b>%1</b>: %2 ranks").arg(folder).arg(ranks);
    if (step_ && ranks)
        text += tr(" at step %1").arg(*step_);
    if (ranks) // no imbalance of nothing (it read "imbalance 0.00")
        text += tr(" · imbalance <b>%1</b> (max ÷ median peak)").arg(c.imbalance, 0, 'f', 2);
    if (!c.outliers.empty())
        text += c.outliers.size() == 1 ? tr(" · 1 outlier") : tr(" · %1 outliers").arg(c.outliers.size());
    if (!c.oomRanks.empty())
        text += tr(" · <span style='color:#d23232'><b>%1 with an OOM</b></span>").arg(c.oomRanks.size());
    if (watch_)
        text += tr(" · <i>watching for new dumps</i>");
    for (const std::string &note : folder_.notes)
        text += "<br><i>" + QString::fromStdString(note).toHtmlEscaped() + "</i>";
    return text;
}

} // namespace memlens
