#include "document/StartPage.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace memlens {

StartPage::StartPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->addStretch();
    auto *title = new QLabel(tr("<h1>memlens</h1><p>Open a PyTorch memory snapshot "
                                "(<code>torch.cuda.memory._dump_snapshot()</code>, e.g. <code>oom_snapshot.pickle</code>) "
                                "to see where GPU memory went.</p><p>Drop a file here, or:</p>"),
                             this);
    title->setAlignment(Qt::AlignCenter);
    title->setWordWrap(true);
    layout->addWidget(title);
    auto *buttons = new QHBoxLayout;
    auto *open = new QPushButton(tr("Open a snapshot…"), this);
    auto *example = new QPushButton(tr("Open the example (GPT-2 training)"), this);
    buttons->addStretch();
    buttons->addWidget(open);
    buttons->addWidget(example);
    buttons->addStretch();
    layout->addLayout(buttons);
    recentHeading_ = new QLabel(tr("<b>Recent files</b>"), this);
    layout->addWidget(recentHeading_, 0, Qt::AlignHCenter);
    recent_ = new QListWidget(this);
    recent_->setMaximumWidth(720);
    recent_->setMinimumWidth(480);
    // The file's name first, its folder after: a long folder is shortened in its middle, the name never.
    recent_->setTextElideMode(Qt::ElideMiddle);
    recent_->setMaximumHeight(200);
    layout->addWidget(recent_, 0, Qt::AlignHCenter);
    layout->addStretch();
    setRecentFiles({}); // none until the window gives them: no heading over an empty list
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(example, &QPushButton::clicked, this, &StartPage::exampleRequested);
    connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) { emit recentRequested(item->data(Qt::UserRole).toString()); });
}

void StartPage::setRecentFiles(const QStringList &files)
{
    recent_->clear();
    for (const QString &f : files) {
        const QFileInfo info(f);
        auto *item = new QListWidgetItem(tr("%1  —  %2").arg(info.fileName(), QDir::toNativeSeparators(info.path())), recent_);
        item->setData(Qt::UserRole, f);
        item->setToolTip(QDir::toNativeSeparators(f));
    }
    recent_->setVisible(!files.isEmpty());
    recentHeading_->setVisible(!files.isEmpty());
}

} // namespace memlens
