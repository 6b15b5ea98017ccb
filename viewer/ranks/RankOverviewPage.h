#pragma once
// A folder of per-rank snapshots: the ranks' peaks as a chart and a table, the imbalance, the
// outliers and OOM ranks marked. Ranks are summarised in the background on every core; a rank's
// full model is built only when it is opened (double-click, or Enter). With dumps at several
// steps, a rank × step heatmap of every dump's peak sits above them; double-clicking a rank there
// opens its dumps stitched into one run. A sharded job's units (FSDP's, Megatron's) are a table of
// their own: a row per unit, a column per rank. Watching the folder, it takes dumps as they land and
// updates in place: the step shown stays the one the user chose.
#include "jobs/JobRunner.h"
#include "ranks/RankSummary.h"

#include <map>
#include <memory>
#include <QWidget>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace memlens {

class DumpFolderWatch;
class RankChart;
class RankStepHeatmap;
class RankTableModel;
class RankUnitsModel;

class RankOverviewPage : public QWidget {
    Q_OBJECT

public:
    explicit RankOverviewPage(std::shared_ptr<const SnapshotCache> cache, QWidget *parent = nullptr);
    ~RankOverviewPage() override;

    // Throws std::runtime_error when the folder cannot be read, or holds no snapshot unless
    // `mayBeEmpty` (a folder to watch, before the job's first dump).
    // A Parquet dataset (`memlens export --parquet`) opens from its snapshots table alone.
    void openFolder(const QString &folder, bool mayBeEmpty = false);
    // The figures a dataset's snapshots table holds; its dumps open when they are at hand.
    // Throws std::runtime_error naming a part that cannot be read.
    void openDataset(const QString &dataset);
    void showStep(const std::optional<int64_t> &step);
    const RankFolder &folder() const { return folder_; }
    RankTableModel *model() const { return model_; }
    QTableView *table() const { return table_; }
    RankChart *chart() const { return chart_; }
    RankStepHeatmap *heatmap() const { return heatmap_; }
    // The units side by side (hidden unless some rank names units).
    RankUnitsModel *unitsModel() const { return unitsModel_; }
    QTableView *unitsTable() const { return unitsTable_; }
    // Follows the folder for new dumps (File ▸ Watch Folder…); `seconds` between looks.
    void watch(double seconds = 1.0);
    bool isWatching() const { return watch_ != nullptr; }
    bool isSummarizing() const { return !finished_; }
    // Dumps summarised so far by this page's jobs: each once, shared by the table and the heatmap.
    size_t dumpsSummarised() const { return dumpsSummarised_; }
    QString headline() const;

signals:
    void openRankRequested(const QString &path);
    void compareRanksRequested(const QString &a, int deviceA, const QString &b, int deviceB);
    void summarized(); // all ranks of the shown step are in
    void gridSummarized(); // every dump's figures are in the heatmap
    void openStitchedRankRequested(const QString &folder, int rank);
    void dumpsLanded(const QString &folder, const std::vector<int> &ranks); // while watching

private:
    void publish(std::vector<RankFigures> ranks);
    void fillSteps();
    // Summarises the dumps the heatmap has no figures for yet, then redraws it.
    void summarizeGrid();
    void publishGrid();
    // The figures already summarised of those of `files` that have them, in their order.
    std::vector<RankFigures> knownFigures(const std::vector<RankFile> &files) const;
    void lookForDumps();
    std::vector<size_t> selectedRows() const;

    std::shared_ptr<const SnapshotCache> cache_;
    RankFolder folder_;
    bool dumpsAtHand_ = true; // false: a dataset whose dumps are on another machine
    std::optional<int64_t> step_;
    QLabel *title_;
    QComboBox *steps_;
    QProgressBar *progress_;
    QPushButton *compare_;
    RankChart *chart_;
    RankTableModel *model_;
    QSortFilterProxyModel *proxy_;
    QTableView *table_;
    RankUnitsModel *unitsModel_;
    QSortFilterProxyModel *unitsProxy_;
    QTableView *unitsTable_;
    RankStepHeatmap *heatmap_;
    bool finished_ = true;
    bool followLatest_ = true; // false once the user picks a step
    size_t dumpsSummarised_ = 0;
    std::map<std::string, RankFigures> dumpFigures_; // by path: every dump summarised so far
    std::unique_ptr<DumpFolderWatch> watch_;
    QTimer *watchTimer_ = nullptr;
    JobRunner gridJobs_{this};
    JobRunner jobs_{this}; // last two: joined before the rest goes
};

} // namespace memlens
