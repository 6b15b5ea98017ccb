#pragma once
// "What would help": the snapshot's fixes in advise's order (what fits, least effort first),
// each with its effort, what it saves, the peak after it and whether that fits; the reason is the tooltip. Activating one asks for it
// to be shown applied in the estimator.
#include "advice/FixRanking.h"

#include <QListWidget>

namespace memlens {

class FixList : public QListWidget {
    Q_OBJECT

public:
    explicit FixList(QWidget *parent = nullptr);
    void setAdvice(const Advice *advice); // null: nothing to advise on
    QString text() const;                 // the rows, for exports and tests

signals:
    void fixActivated(int fix); // index into Advice::fixes

private:
    const Advice *advice_ = nullptr;
};

} // namespace memlens
