#include "stacks/StacksPage.h"

#include "state/RefreshWhenShown.h"
#include "state/ViewState.h"
#include "stacks/CallTreeModel.h"
#include "stacks/CostBarDelegate.h"
#include "stacks/FlameGraphWidget.h"
#include "style/AllocationText.h"
#include "style/ByteText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace memlens {

StacksPage::StacksPage(ViewState *state, QWidget *parent) : QWidget(parent), state_(state)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    title_ = new QLabel(this);
    auto *bar = new QHBoxLayout;
    scope_ = new QComboBox(this);
    scope_->addItems({tr("Live at the cursor"), tr("Allocated in the visible range")});
    scope_->setToolTip(tr("Either what is live at the selected event, or everything allocated in the timeline's visible range"));
    groupBy_ = new QComboBox(this);
    groupBy_->addItems({tr("By call stack"), tr("By compiled region"), tr("By user metadata"), tr("By label")});
    groupBy_->setToolTip(tr("Split the stacks by torch.compile region, by the allocation's user_metadata, or by its "
                            "latest annotate label first"));
    direction_ = new QComboBox(this);
    direction_->addItems({tr("Top-down"), tr("Bottom-up")});
    direction_->setToolTip(tr("Top-down starts at the outermost frame; bottom-up at the allocation site"));
    hideNoise_ = new QCheckBox(tr("Hide noise frames"), this);
    hideNoise_->setChecked(true);
    hideNoise_->setToolTip(tr("Fold the frames every allocation passes through: the unwinder, the caching allocator, the "
                              "dispatcher and autograd's layers, the Python bindings and the interpreter"));
    pythonOnly_ = new QCheckBox(tr("Python only"), this);
    foldRecursion_ = new QCheckBox(tr("Fold recursion"), this);
    search_ = new QLineEdit(this);
    search_->setPlaceholderText(tr("Search frames"));
    search_->setClearButtonEnabled(true);
    auto *heaviest = new QPushButton(tr("Expand heaviest"), this);
    auto *exportButton = new QPushButton(tr("Export folded…"), this);
    exportButton->setToolTip(tr("frame;frame;frame bytes — for flamegraph.pl and speedscope"));
    // Two rows, what is shown and how it is filtered, so that the page never needs more width
    // than the window has (one row of nine controls widened it by 75 px); the title wraps.
    for (QWidget *w : std::initializer_list<QWidget *>{scope_, groupBy_, direction_, search_})
        bar->addWidget(w);
    auto *filters = new QHBoxLayout;
    for (QWidget *w : std::initializer_list<QWidget *>{hideNoise_, pythonOnly_, foldRecursion_, heaviest, exportButton})
        filters->addWidget(w);
    filters->addStretch();
    search_->setMinimumWidth(120);
    title_->setWordWrap(true);
    layout->addWidget(title_);
    layout->addLayout(bar);
    layout->addLayout(filters);
    auto *split = new QSplitter(Qt::Vertical, this);
    model_ = new CallTreeModel(this);
    view_ = new QTreeView(split);
    view_->setModel(model_);
    view_->setUniformRowHeights(true);
    view_->setAlternatingRowColors(true);
    view_->setItemDelegateForColumn(CallTreeModel::Bytes, new CostBarDelegate(CallTreeModel::FractionRole, this));
    view_->header()->setStretchLastSection(false);
    view_->header()->setSectionResizeMode(CallTreeModel::FrameColumn, QHeaderView::Stretch);
    // The figures as wide as they need, the rest to the frames: at 1024 px the fixed 100 px
    // columns left the frame column ~150 px, deep frames elided to nothing.
    for (int column : {CallTreeModel::Share, CallTreeModel::Count, CallTreeModel::Mostly, CallTreeModel::Labels})
        view_->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    view_->header()->resizeSection(CallTreeModel::Bytes, 90);
    flame_ = new FlameGraphWidget(split);
    split->addWidget(view_);
    split->addWidget(flame_);
    layout->addWidget(split, 1);

    for (QCheckBox *c : {hideNoise_, pythonOnly_, foldRecursion_})
        connect(c, &QCheckBox::toggled, this, &StacksPage::rebuild);
    connect(direction_, &QComboBox::currentIndexChanged, this, &StacksPage::rebuild);
    connect(groupBy_, &QComboBox::currentIndexChanged, this, &StacksPage::rebuild);
    connect(scope_, &QComboBox::currentIndexChanged, this, &StacksPage::rebuild);
    // The range moves with every pan and the cursor with every step: a hidden page catches up
    // when it is shown.
    auto *refresh = new RefreshWhenShown(this, [this] { rebuild(); });
    connect(state_, &ViewState::visibleRangeChanged, this, [this, refresh] {
        if (allocatedInRange())
            refresh->request();
    });
    connect(search_, &QLineEdit::textChanged, flame_, &FlameGraphWidget::setSearch);
    connect(search_, &QLineEdit::returnPressed, this, [this] {
        const auto hits = model_->match(model_->index(0, 0), Qt::DisplayRole, search_->text(), 1,
                                        Qt::MatchContains | Qt::MatchRecursive | Qt::MatchWrap);
        if (!hits.isEmpty()) {
            view_->setCurrentIndex(hits.first());
            view_->scrollTo(hits.first());
        }
    });
    connect(heaviest, &QPushButton::clicked, this, &StacksPage::expandHeaviest);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export folded stacks"), "stacks.folded");
        if (!path.isEmpty())
            if (const QString error = exportFolded(path); !error.isEmpty())
                title_->setText(error);
    });
    connect(flame_, &FlameGraphWidget::nodeClicked, this, [this](CallTreeNodeId node) {
        const QModelIndex index = model_->indexOfNode(node);
        if (index.isValid()) {
            view_->setCurrentIndex(index);
            view_->scrollTo(index);
        }
    });
    connect(state_, &ViewState::selectedEventChanged, refresh, &RefreshWhenShown::request);
    connect(state_, &ViewState::deviceChanged, refresh, &RefreshWhenShown::request);
}

CallTreeOptions StacksPage::options() const
{
    CallTreeOptions o;
    o.grouping = kStackGroupingNames.values()[static_cast<size_t>(std::max(0, groupBy_->currentIndex()))];
    o.bottomUp = direction_->currentIndex() == 1;
    o.hideNoise = hideNoise_->isChecked();
    o.pythonOnly = pythonOnly_->isChecked();
    o.foldRecursion = foldRecursion_->isChecked();
    return o;
}

void StacksPage::setOptions(const CallTreeOptions &o)
{
    updating_ = true;
    const auto groupings = kStackGroupingNames.values();
    groupBy_->setCurrentIndex(static_cast<int>(std::find(groupings.begin(), groupings.end(), o.grouping) - groupings.begin()));
    direction_->setCurrentIndex(o.bottomUp ? 1 : 0);
    hideNoise_->setChecked(o.hideNoise);
    pythonOnly_->setChecked(o.pythonOnly);
    foldRecursion_->setChecked(o.foldRecursion);
    updating_ = false;
    rebuild();
}

void StacksPage::setAllocatedInRange(bool range)
{
    scope_->setCurrentIndex(range ? 1 : 0);
}

bool StacksPage::allocatedInRange() const
{
    return scope_->currentIndex() == 1;
}

void StacksPage::rebuild()
{
    if (updating_)
        return;
    const DeviceData *d = state_->deviceData();
    if (!d) {
        model_->setTree(nullptr);
        flame_->setTree(nullptr);
        return;
    }
    std::shared_ptr<const CallTree> tree;
    if (scope_->currentIndex() == 1) {
        const auto n = static_cast<uint32_t>(d->index->eventCount());
        const EventId first = std::min(state_->visibleFirstEvent(), EventId(n ? n - 1 : 0));
        const EventId last = std::min(state_->visibleLastEvent(), EventId(n ? n - 1 : 0));
        std::vector<AllocationId> born;
        for (uint32_t e = first.index(); n && e <= last.index(); ++e) {
            if (d->index->events().action[e] == Action::Alloc)
                born.push_back(d->index->allocationOfEvent(EventId(e)));
        }
        tree = std::make_shared<const CallTree>(*state_->document()->snapshot, *d->index, born, options(), d->categories.get());
        title_->setText(tr("<b>%1 allocated in %2 allocations from %3 to %4</b>%5")
                            .arg(bytesText(tree->root().bytes))
                            .arg(born.size())
                            .arg(eventLabel(*d->index, first), eventLabel(*d->index, last), groupingText()));
    } else {
        const TracePoint at = state_->cursorPoint(d->index->peak());
        tree = std::make_shared<const CallTree>(*state_->document()->snapshot, *d->index, d->index->liveAt(at), options(), d->categories.get());
        title_->setText(tr("<b>%1 live after %2</b>%3%4")
                            .arg(bytesText(tree->root().bytes), pointLabel(*d->index, at))
                            .arg(at == d->index->peak() ? tr(" (the peak)") : QString(), groupingText()));
    }
    tree_ = tree;
    model_->setTree(tree);
    flame_->setTree(tree);
    expandHeaviest();
}

QString StacksPage::groupingText() const
{
    switch (options().grouping) {
    case StackGrouping::CompiledRegion: return tr(", by compiled region, then call stack");
    case StackGrouping::UserMetadata: return tr(", by user metadata, then call stack");
    case StackGrouping::Label: return tr(", by label, then call stack");
    case StackGrouping::None: break;
    }
    return tr(", by call stack");
}

void StacksPage::expandHeaviest()
{
    if (!tree_)
        return;
    QModelIndex last;
    for (CallTreeNodeId node : tree_->heaviestPath()) {
        const QModelIndex index = model_->indexOfNode(node);
        if (index.isValid()) {
            view_->expand(index);
            last = index;
        }
    }
    if (last.isValid())
        view_->scrollTo(last);
}

QString StacksPage::exportFolded(const QString &path) const
{
    if (!tree_)
        return tr("Nothing to export");
    QSaveFile file(path);
    const QByteArray text = QByteArray::fromStdString(tree_->folded());
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        return tr("%1: cannot write: %2").arg(path, file.errorString());
    return {};
}

} // namespace memlens
