#pragma once
// A folder of per-rank snapshots: the ranks' peaks as a chart and a table, the imbalance, the
// outliers and OOM ranks marked. Ranks are summarised in the background on every core; a rank's
// full model is built only when it is opened (double-click, or Enter).
#include "jobs/JobRunner.h"
#include "ranks/RankSummary.h"

#include <memory>
#include <QWidget>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace memlens {

class RankChart;
class RankTableModel;

class RankOverviewPage : public QWidget {
    Q_OBJECT

public:
    explicit RankOverviewPage(std::shared_ptr<const SnapshotCache> cache, QWidget *parent = nullptr);
    ~RankOverviewPage() override;

    // Throws std::runtime_error when the folder cannot be read or holds no snapshot.
    void openFolder(const QString &folder);
    void showStep(const std::optional<int64_t> &step);
    const RankFolder &folder() const { return folder_; }
    RankTableModel *model() const { return model_; }
    QTableView *table() const { return table_; }
    RankChart *chart() const { return chart_; }
    bool isSummarizing() const { return !finished_; }
    QString headline() const;

signals:
    void openRankRequested(const QString &path);
    void compareRanksRequested(const QString &a, int deviceA, const QString &b, int deviceB);
    void summarized(); // all ranks of the shown step are in

private:
    void publish(std::vector<RankFigures> ranks);
    std::vector<size_t> selectedRows() const;

    std::shared_ptr<const SnapshotCache> cache_;
    RankFolder folder_;
    std::optional<int64_t> step_;
    QLabel *title_;
    QComboBox *steps_;
    QProgressBar *progress_;
    QPushButton *compare_;
    RankChart *chart_;
    RankTableModel *model_;
    QSortFilterProxyModel *proxy_;
    QTableView *table_;
    bool finished_ = true;
    JobRunner jobs_{this}; // last: joined before the rest goes
};

} // namespace memlens
