#include "document/LoadProgressPage.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace memlens {

LoadProgressPage::LoadProgressPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addStretch();
    label_ = new QLabel(this);
    label_->setAlignment(Qt::AlignCenter);
    bar_ = new QProgressBar(this);
    bar_->setRange(0, 1000);
    bar_->setMaximumWidth(480);
    auto *cancel = new QPushButton(tr("Cancel"), this);
    cancel->setShortcut(Qt::Key_Escape);
    connect(cancel, &QPushButton::clicked, this, &LoadProgressPage::cancelRequested);
    layout->addWidget(label_);
    auto *row = new QHBoxLayout;
    row->addStretch();
    row->addWidget(bar_, 1);
    row->addWidget(cancel);
    row->addStretch();
    layout->addLayout(row);
    layout->addStretch();
}

void LoadProgressPage::start(const QString &text)
{
    bar_->setValue(0);
    label_->setText(text);
}

void LoadProgressPage::setProgress(double fraction, const QString &text)
{
    bar_->setValue(static_cast<int>(fraction * 1000));
    label_->setText(text);
}

} // namespace memlens
