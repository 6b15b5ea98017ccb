#include "summary/FixList.h"

#include "style/ByteText.h"
#include "style/StatusColors.h"

namespace memlens {

FixList::FixList(QWidget *parent) : QListWidget(parent)
{
    setToolTip(tr("Double-click or press Enter to see a fix applied in the estimator"));
    setAlternatingRowColors(true);
    connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { emit fixActivated(item->data(Qt::UserRole).toInt()); });
}

void FixList::setAdvice(const Advice *advice)
{
    advice_ = advice;
    clear();
    if (!advice)
        return;
    if (advice->fixes.empty()) {
        QString why = QString::fromStdString(advice->noFixesBecause);
        if (!why.isEmpty())
            why[0] = why[0].toUpper();
        auto *item = new QListWidgetItem(why + ".", this);
        item->setFlags(Qt::NoItemFlags);
        return;
    }
    for (size_t i = 0; i < advice->fixes.size(); ++i) {
        const Fix &f = advice->fixes[i];
        QString fits;
        if (f.fits)
            fits = *f.fits ? tr(" · fits") : tr(" · still does not fit");
        if (f.marginBytes && advice->capacity)
            fits += ", " + QString::fromStdString(marginText(f, *advice->capacity));
        auto *item = new QListWidgetItem(tr("%1 (%5) — saves %2, peak %3%4")
                                             .arg(QString::fromStdString(f.technique), bytesText(uint64_t(f.savesBytes)), bytesText(f.peakAfterBytes), fits,
                                                  QString::fromLatin1(kEffortNames.name(f.effort))),
                                         this);
        item->setToolTip(QString::fromStdString(f.why));
        item->setData(Qt::UserRole, int(i));
        // A fix that fits by less than the error of what priced it is told apart (amber): not a
        // promise, but not disabled either.
        if (f.fits)
            item->setForeground(f.thinMargin ? cautionTextColor(palette())
                                : *f.fits    ? goodTextColor(palette())
                                             : palette().color(QPalette::Text));
    }
    if (!advice->notTried.empty()) {
        // What was left untried in a line, why and how to try it on hover.
        const QString notTried = QString::fromStdString(advice->notTried);
        auto *item = new QListWidgetItem(tr("Not tried: %1 — hover for how").arg(notTried.section(':', 0, 0)), this);
        item->setFlags(Qt::NoItemFlags);
        item->setToolTip(notTried);
    }
}

QString FixList::text() const
{
    QStringList rows;
    for (int i = 0; i < count(); ++i)
        rows << item(i)->text();
    return rows.join('\n');
}

} // namespace memlens
