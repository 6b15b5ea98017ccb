#pragma once
// "Would it fit with this setting?" on the Segments page: reserved bytes over the trace as
// recorded and as `memlens replay` predicts them under a PYTORCH_CUDA_ALLOC_CONF the user
// picks or types, with a predicted OOM marked. The replay runs off the GUI thread; a result
// for an older setting or device is dropped; a current one goes to the ViewState, which the
// timeline draws from as well.
#include "jobs/JobRunner.h"
#include "pipeline/Document.h"
#include "replay/Replay.h"

#include <memory>
#include <optional>
#include <string>
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;

namespace memlens {

class ViewState;

class WhatIfPanel : public QWidget {
    Q_OBJECT

public:
    WhatIfPanel(ViewState *state, QWidget *parent = nullptr);
    ~WhatIfPanel() override;

    // Replays under CONF ("" = the file's own setting); the combo shows it.
    void setConfig(const QString &conf);
    QString summaryText() const;
    bool isReplaying() const { return replaying_; }

signals:
    void replayed(); // a result was shown

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    void start();
    // Why the device shown cannot be replayed (replay/ReplayAdmission); empty when it can.
    std::optional<std::string> notReplayable() const;
    void showResult();
    void drawRecorded();
    // A wrapped label's minimum height is not its height at its width: without this the
    // splitter gave the panel too little and the chart's bottom (its x title) was cut.
    void fitSummary();

    ViewState *state_;
    QComboBox *conf_;
    QLabel *summary_;
    QCustomPlot *plot_;
    bool replaying_ = false;
    JobRunner jobs_{this};
};

} // namespace memlens
