// Notes on the timeline, the segment map and the flame graph (offscreen, real files):
// they stay pinned to their data (events and bytes, device addresses, frame paths) through zoom,
// rescaling and cursor moves; mouse editing makes one undo step per drag; the draw tools, the
// list and sessions work; `memlens render --session` draws them into PNG and SVG.
#include "CorpusFiles.h"
#include "IdPrinting.h"
#include "views/CallTree.h"
#include "notes/NoteEditor.h"
#include "notes/NotePainter.h"
#include "notes/NoteSet.h"
#include "document/DocumentView.h"
#include "document/SessionBinding.h"
#include "state/ViewState.h"
#include "model/ByteFormat.h"
#include "segments/SegmentMapWidget.h"
#include "segments/SegmentsPage.h"
#include "stacks/FlameGraphWidget.h"
#include "stacks/StacksPage.h"
#include "timeline/AllocationBandsPlottable.h"
#include "timeline/TimelineView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QImage>
#include <QKeyEvent>
#include <QListWidget>
#include <QMouseEvent>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <qcustomplot.h>

using namespace memlens;

namespace {

QString oomFile()
{
    return corpusDir() + "/snapshots/oom_gpt2_medium_6gib/oom_snapshot.pickle";
}

std::unique_ptr<DocumentView> openView(const LoadedDocument &loaded, Page page)
{
    auto view = std::make_unique<DocumentView>();
    view->setDocument(loaded);
    view->showPage(page);
    view->resize(1400, 900);
    view->show();
    QApplication::processEvents();
    return view;
}

// Every prompt answers `text` (the dialog cannot be clicked offscreen); counts the questions.
void answer(NoteEditor *editor, const QString &text, int *asked = nullptr)
{
    editor->setTextPrompt([text, asked](QWidget *, const QString &, QString &t) {
        if (asked)
            ++*asked;
        t = text;
        return true;
    });
}

void mouse(QWidget *w, QEvent::Type type, QPointF at, Qt::MouseButtons buttons)
{
    QMouseEvent e(type, at, w->mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

void drag(QWidget *w, QPointF from, QPointF to)
{
    mouse(w, QEvent::MouseButtonPress, from, Qt::LeftButton);
    mouse(w, QEvent::MouseMove, (from + to) / 2, Qt::LeftButton);
    mouse(w, QEvent::MouseMove, to, Qt::LeftButton);
    mouse(w, QEvent::MouseButtonRelease, to, Qt::NoButton);
}

void key(QWidget *w, int k)
{
    QKeyEvent e(QEvent::KeyPress, k, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

QRectF labelOf(const NoteSet *set, const NotePlacement &placement, const QWidget *w, int index)
{
    return noteShapes(set->items(), placement, QFontMetrics(w->font()))[index].label;
}

// The largest live block at the OOM event, found in the allocator state the map draws.
const StateBlock *largestBlock(const AllocatorState &state)
{
    const StateBlock *best = nullptr;
    for (const StateSegment &seg : state.segments) {
        for (const StateBlock &b : seg.blocks) {
            if (b.state != BlockState::Inactive && (!best || b.size > best->size))
                best = &b;
        }
    }
    return best;
}

bool reserved(const AllocatorState &state, uint64_t address)
{
    for (const StateSegment &seg : state.segments) {
        if (address >= seg.addr && address < seg.addr + seg.size)
            return true;
    }
    return false;
}

} // namespace

class TestNotes : public QObject {
    Q_OBJECT

    LoadedDocument oomLoaded_;
    std::shared_ptr<const Document> oom_;
    EventId oomEvent_;

private slots:
    void initTestCase()
    {
        oomLoaded_ = loadDocument(oomFile().toStdString());
        oom_ = oomLoaded_.document;
        QCOMPARE(oom_->devices.at(0).summary.ooms.size(), size_t(1));
        oomEvent_ = oom_->devices.at(0).summary.ooms.front().event;
    }

    // Timeline notes stay on their (event, bytes) through zoom, survive a session, and undo/redo.
    void timelineAnchoring()
    {
        auto view = openView(oomLoaded_, Page::Timeline);
        NoteSet *set = view->notes();
        view->addPeakNote();
        QVERIFY(view->addOomNote());
        QCOMPARE(set->items().size(), 2);
        QVERIFY(set->items()[0].text.contains(QString::fromStdString(formatBytes(oom_->devices.at(0).summary.peakActiveBytes))));
        QVERIFY(set->items()[1].text.contains("fragmentation"));
        const Note peak = set->items()[0];
        AllocationBandsPlottable *bands = view->timeline()->bands();
        const QPointF before = *bands->headPixel(peak);
        view->timeline()->zoomBy(4);
        const QPointF after = *bands->headPixel(peak);
        QCOMPARE(set->items()[0], peak);
        QCOMPARE(after.x(), view->timeline()->plot()->xAxis->coordToPixel(peak.x + 0.5));
        QCOMPARE(after.y(), view->timeline()->plot()->yAxis->coordToPixel(peak.y));
        QVERIFY(before.x() != after.x());
        set->undoStack()->undo();
        QCOMPARE(set->items().size(), 1);
        set->undoStack()->redo();
        QCOMPARE(set->items().size(), 2);
        Note moved = peak;
        moved.x -= 100;
        set->replace(0, moved);
        QCOMPARE(set->items()[0].x, peak.x - 100);
        set->undoStack()->undo();
        QCOMPARE(set->items()[0], peak);
        QTemporaryDir dir;
        const std::string path = dir.filePath("a.memlens").toStdString();
        saveSession(path, captureSession(*view), false);
        auto other = openView(oomLoaded_, Page::Summary);
        applySession(*other, loadSession(path));
        QCOMPARE(other->notes()->items(), set->items());
    }

    // On the segment map a note is pinned to a device address: it follows its block when the
    // scale changes and is hidden at events where that memory is not reserved.
    void segmentMapPinsToAddresses()
    {
        auto view = openView(oomLoaded_, Page::Segments);
        view->state()->setSelectedEvent(oomEvent_);
        QApplication::processEvents();
        SegmentMapWidget *map = view->segments()->map();
        const StateBlock *block = largestBlock(map->state());
        QVERIFY(block);
        const QRect first = map->rectOfAllocation(block->allocation);
        QVERIFY(first.isValid());
        NoteEditor *editor = view->noteEditor(NoteView::Segments);
        answer(editor, "the largest block");
        QVERIFY(editor->create(NoteKind::Note, first.center(), first.center()));
        const Note note = view->notes()->items().last();
        QCOMPARE(note.view, NoteView::Segments);
        QCOMPARE(note.event, qint64(oomEvent_.index()));
        QVERIFY(note.x >= double(block->addr) && note.x < double(block->addr + block->size));
        for (uint64_t bytesPerRow : {map->bytesPerRow() / 4, map->bytesPerRow() * 8}) {
            map->setBytesPerRow(bytesPerRow);
            const auto at = map->headPixel(note);
            QVERIFY(at);
            AllocationId under;
            map->describeAt(at->toPoint(), &under);
            QCOMPARE(under, block->allocation); // the map's own hit test finds the same block
        }
        // Event 0: only the first segment exists, so the note's memory is not reserved yet.
        view->state()->setSelectedEvent(EventId(0));
        QApplication::processEvents();
        QCOMPARE(map->state().at, TracePoint::after(EventId(0)));
        QVERIFY(!reserved(map->state(), static_cast<uint64_t>(note.x)));
        QVERIFY(!map->headPixel(note));
        // Jumping to it from the list brings back its event and page.
        view->showPage(Page::Summary);
        view->jumpToNote(0);
        QCOMPARE(view->currentPageKind(), Page::Segments);
        QCOMPARE(view->state()->selectedEvent(), oomEvent_);
        QVERIFY(map->headPixel(note));
        QCOMPARE(view->notes()->selected(), 0);
    }

    // "Annotate This OOM" on the segments page points at the largest hole at the OOM.
    void oomNoteOnTheSegmentMap()
    {
        auto view = openView(oomLoaded_, Page::Segments);
        QVERIFY(view->addOomNote());
        const Note note = view->notes()->items().last();
        QCOMPARE(note.view, NoteView::Segments);
        QCOMPARE(note.event, qint64(oomEvent_.index()));
        QCOMPARE(view->state()->selectedEvent(), oomEvent_);
        SegmentMapWidget *map = view->segments()->map();
        const auto at = map->headPixel(note);
        QVERIFY(at);
        const uint64_t hole = oom_->devices.at(0).summary.ooms.front().largestFreeBlock;
        QCOMPARE(hole, uint64_t(8) << 20); // torch's OOM message: 8 MiB was the largest free block
        const QString under = map->describeAt(at->toPoint());
        QVERIFY2(under.startsWith("Free: " + QString::fromStdString(formatBytes(hole))), qPrintable(under));
        QVERIFY(note.text.contains("fragmentation"));
    }

    // Dragging a label moves the note (one undo step); dragging a box's corner handle moves that
    // corner only; a click only selects.
    void dragMovesWithOneUndoStep()
    {
        auto view = openView(oomLoaded_, Page::Segments);
        view->state()->setSelectedEvent(oomEvent_);
        QApplication::processEvents();
        SegmentMapWidget *map = view->segments()->map();
        NoteSet *set = view->notes();
        NoteEditor *editor = view->noteEditor(NoteView::Segments);
        answer(editor, "drag me");
        const QPointF start(map->width() * 0.3, 60);
        QVERIFY(editor->create(NoteKind::Note, start, start));
        const Note original = set->items().last();
        const QPointF head = *map->headPixel(original);
        const QRectF label = labelOf(set, *map, map, 0);
        QVERIFY(!label.isEmpty());
        const int steps = set->undoStack()->count();
        mouse(map, QEvent::MouseButtonPress, label.center(), Qt::LeftButton);
        mouse(map, QEvent::MouseButtonRelease, label.center(), Qt::NoButton);
        QCOMPARE(set->undoStack()->count(), steps); // a click selects, it does not edit
        QCOMPARE(set->selected(), 0);
        const QPointF delta(120, 3 * (map->fontMetrics().height() + 6));
        drag(map, label.center(), label.center() + delta);
        QCOMPARE(set->undoStack()->count(), steps + 1);
        QCOMPARE(set->undoStack()->undoText(), QString("Move note"));
        const QPointF moved = *map->headPixel(set->items()[0]);
        QVERIFY2(std::abs(moved.x() - (head.x() + delta.x())) < 3 && std::abs(moved.y() - (head.y() + delta.y())) < 3,
                 qPrintable(QString("%1,%2 vs %3,%4").arg(moved.x()).arg(moved.y()).arg(head.x() + delta.x()).arg(head.y() + delta.y())));
        set->undoStack()->undo();
        QCOMPARE(set->items()[0], original);
        set->undoStack()->redo();
        QVERIFY(set->items()[0].x != original.x);

        // A box: its corner handle moves one corner, the other stays on its address.
        QVERIFY(editor->create(NoteKind::Box, QPointF(map->width() * 0.2, 100), QPointF(map->width() * 0.5, 160)));
        const int b = static_cast<int>(set->items().size()) - 1;
        const Note box = set->items()[b];
        QCOMPARE(set->selected(), b);
        const QPointF corner = *map->tailPixel(box);
        drag(map, corner, corner + QPointF(-80, 0));
        QCOMPARE(set->items()[b].x, box.x);
        QVERIFY(set->items()[b].x2 < box.x2); // memory flows left to right: an earlier address
    }

    // On the flame graph a note is pinned to a frame path: it finds its frame in the tree
    // of another event, stays on it when zoomed in, and is hidden when that branch is not shown.
    void flameGraphPinsToFrames()
    {
        auto view = openView(oomLoaded_, Page::Stacks);
        view->state()->setSelectedEvent(oomEvent_);
        QApplication::processEvents();
        FlameGraphWidget *flame = view->stacks()->flameGraph();
        const auto tree = flame->tree();
        QVERIFY(tree);
        const std::vector<CallTreeNodeId> heavy = tree->heaviestPath();
        QVERIFY(heavy.size() > 4);
        const CallTreeNodeId node = heavy[3];
        const QRectF rect = *flame->rectOfNode(node);
        NoteEditor *editor = view->noteEditor(NoteView::FlameGraph);
        answer(editor, "who allocates this");
        QVERIFY(editor->create(NoteKind::Arrow, rect.center() + QPointF(60, 120), rect.center()));
        const Note arrow = view->notes()->items().last();
        QCOMPARE(arrow.target, flame->pathOf(node));
        QCOMPARE(arrow.target.section('\n', -1), QString::fromStdString(tree->label(node)));
        QCOMPARE(arrow.target.count('\n'), 2); // three frames below the root
        QCOMPARE(flame->nodeOfPath(arrow.target), node);
        QVERIFY((*flame->headPixel(arrow) - rect.center()).manhattanLength() < 2);
        QVERIFY((*flame->tailPixel(arrow) - (rect.center() + QPointF(60, 120))).manhattanLength() < 2);
        // Zoomed into its frame: the same frame, now full width.
        flame->zoomTo(node);
        QVERIFY(flame->rectOfNode(node)->width() > rect.width() - 1);
        QVERIFY(flame->rectOfNode(node)->contains(*flame->headPixel(arrow)));
        // Zoomed into a branch that does not hold it: hidden.
        CallTreeNodeId other;
        for (CallTreeNodeId c : tree->root().children) {
            if (c != heavy[1])
                other = c;
        }
        QVERIFY(!other.isNone());
        flame->zoomTo(other);
        QVERIFY(flame->rectOfNode(other));
        QVERIFY(!flame->headPixel(arrow));
        flame->zoomTo(CallTree::kRoot);
        // The tree of another event is a new tree; the path finds the same frame in it.
        view->state()->setSelectedEvent(oom_->devices.at(0).summary.peakIndex.value());
        QApplication::processEvents();
        QVERIFY(flame->tree() != tree);
        const CallTreeNodeId again = flame->nodeOfPath(arrow.target);
        QVERIFY(!again.isNone());
        QCOMPARE(flame->pathOf(again), arrow.target);
        QVERIFY(flame->rectOfNode(again)->contains(*flame->headPixel(arrow)));
        // A box outlines its frame and, dragged down, the rows of callees below it.
        const QRectF r = *flame->rectOfNode(again);
        QVERIFY(editor->create(NoteKind::Box, r.center(), r.center() + QPointF(0, 2 * r.height() + 2)));
        const Note box = view->notes()->items().last();
        QCOMPARE(box.y2, 2.0);
        QVERIFY(std::abs(flame->boxRect(box)->height() - (r.height() + 2 * (r.height() + 1) + 2)) < 2);
    }

    // A session brings back the flame graph's tree options and zoom, and the map's scale, so
    // notes pinned in them are where they were.
    void sessionRestoresPinnedViews()
    {
        auto view = openView(oomLoaded_, Page::Stacks);
        view->state()->setSelectedEvent(oomEvent_);
        StacksPage *stacks = view->stacks();
        CallTreeOptions o = stacks->options();
        o.bottomUp = true;
        stacks->setOptions(o);
        FlameGraphWidget *flame = stacks->flameGraph();
        // The heaviest site with frames above it: the heaviest path can be one level deep (the
        // allocations without a stack), and reading its third node read past it (make sanitize).
        const CallTree &tree = *flame->tree();
        const auto &sites = tree.root().children;
        const auto deep = std::find_if(sites.begin(), sites.end(), [&](CallTreeNodeId n) { return !tree.node(n).children.empty(); });
        QVERIFY(deep != sites.end());
        const CallTreeNodeId zoom = *deep;
        flame->zoomTo(zoom);
        const QRectF frame = *flame->rectOfNode(tree.node(zoom).children.front());
        answer(view->noteEditor(NoteView::FlameGraph), "bottom-up site");
        QVERIFY(view->noteEditor(NoteView::FlameGraph)->create(NoteKind::Note, frame.center(), frame.center()));
        const QPointF at = *flame->headPixel(view->notes()->items().last());
        view->segments()->map()->setBytesPerRow(uint64_t(16) << 20);
        QTemporaryDir dir;
        const std::string path = dir.filePath("z.memlens").toStdString();
        saveSession(path, captureSession(*view), false);
        auto other = openView(oomLoaded_, Page::Summary);
        applySession(*other, loadSession(path));
        QVERIFY(other->stacks()->options().bottomUp);
        FlameGraphWidget *restored = other->stacks()->flameGraph();
        QCOMPARE(restored->pathOf(restored->zoomedNode()), flame->pathOf(zoom));
        QCOMPARE(other->segments()->map()->bytesPerRow(), uint64_t(16) << 20);
        restored->resize(flame->size());
        const auto again = restored->headPixel(other->notes()->items().last());
        QVERIFY(again);
        QVERIFY((*again - at).manhattanLength() < 1);
    }

    // Double-click edits the text, Delete removes the selected note, Ctrl+Z brings it back.
    void editAndDelete()
    {
        auto view = openView(oomLoaded_, Page::Timeline);
        view->addPeakNote();
        NoteSet *set = view->notes();
        QCustomPlot *plot = view->timeline()->plot();
        NoteEditor *editor = view->noteEditor(NoteView::Timeline);
        int asked = 0;
        answer(editor, "renamed", &asked);
        plot->replot();
        const QRectF label = labelOf(set, *view->timeline()->bands(), plot, 0);
        QVERIFY(!label.isEmpty());
        mouse(plot, QEvent::MouseButtonDblClick, label.center(), Qt::LeftButton);
        QCOMPARE(asked, 1);
        QCOMPARE(set->items()[0].text, QString("renamed"));
        set->undoStack()->undo();
        QVERIFY(set->items()[0].text.startsWith("Peak"));
        set->setSelected(0);
        key(plot, Qt::Key_Delete);
        QCOMPARE(set->items().size(), 0);
        set->undoStack()->undo();
        QCOMPARE(set->items().size(), 1);
        // Edits from the list go through the same undo stack.
        QVERIFY(view->editNote(0));
        QCOMPARE(set->items()[0].text, QString("renamed"));
    }

    // The draw tools: an arrow is dragged from its text to what it points at; Esc cancels a tool.
    void drawTools()
    {
        auto view = openView(oomLoaded_, Page::Timeline);
        QCustomPlot *plot = view->timeline()->plot();
        NoteSet *set = view->notes();
        NoteEditor *editor = view->noteEditor(NoteView::Timeline);
        answer(editor, "drawn");
        const QRect area = plot->axisRect()->rect();
        const QPointF from(area.left() + area.width() * 0.2, area.top() + area.height() * 0.3);
        const QPointF to(area.left() + area.width() * 0.6, area.top() + area.height() * 0.7);
        view->setNoteTool(NoteKind::Arrow);
        QCOMPARE(editor->tool(), NoteKind::Arrow);
        drag(plot, from, to);
        QVERIFY(!editor->tool()); // one shape per tool use
        QCOMPARE(set->items().size(), 1);
        const Note arrow = set->items()[0];
        QCOMPARE(arrow.kind, NoteKind::Arrow);
        QCOMPARE(arrow.text, QString("drawn"));
        const QPointF head = *view->timeline()->bands()->headPixel(arrow);
        const double column = plot->xAxis->coordToPixel(1) - plot->xAxis->coordToPixel(0);
        QVERIFY(std::abs(head.x() - to.x()) <= column + 1);
        QVERIFY(std::abs(head.y() - to.y()) <= 1);
        QCOMPARE(arrow.x, double(view->state()->axis().eventAt(plot->xAxis->pixelToCoord(to.x())).index()));
        // Esc cancels a tool before anything is drawn.
        view->setNoteTool(NoteKind::Note);
        key(plot, Qt::Key_Escape);
        QVERIFY(!editor->tool());
        mouse(plot, QEvent::MouseButtonPress, from, Qt::LeftButton);
        mouse(plot, QEvent::MouseButtonRelease, from, Qt::NoButton);
        QCOMPARE(set->items().size(), 1);
        // A tool on a page without notes shows the timeline.
        view->showPage(Page::Live);
        view->setNoteTool(NoteKind::Box);
        QCOMPARE(view->currentPageKind(), Page::Timeline);
        view->setNoteTool({});
    }

    // The list follows the set: rows, selection both ways, and a sane item model.
    void noteList()
    {
        auto view = openView(oomLoaded_, Page::Timeline);
        auto *list = view->findChild<QListWidget *>();
        QVERIFY(list);
        QAbstractItemModelTester tester(list->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        view->addPeakNote();
        QVERIFY(view->addOomNote());
        QCOMPARE(list->count(), 2);
        QVERIFY(list->item(1)->text().contains("OOM"));
        view->notes()->setSelected(0);
        QCOMPARE(list->currentRow(), 0);
        list->setCurrentRow(1);
        QCOMPARE(view->notes()->selected(), 1);
        view->notes()->remove(0);
        QCOMPARE(list->count(), 1);
        QCOMPARE(view->notes()->selected(), 0); // still the OOM note
    }

    // A hand-edited session with wrong types loses those fields, never the list or the program.
    void sessionFieldsOfWrongType()
    {
        NoteSet set;
        set.setFromJson(nlohmann::json::parse(R"([{"kind": 5, "view": "segments", "text": ["x"], "x": "a", "event": 1e300},
                                                   "not an object", {"kind": "box", "x": 1.5, "target": "a\nb"}])"));
        QCOMPARE(set.items().size(), 2);
        QCOMPARE(set.items()[0].kind, NoteKind::Note);
        QCOMPARE(set.items()[0].view, NoteView::Segments);
        QCOMPARE(set.items()[0].x, 0.0);
        QCOMPARE(set.items()[0].event, qint64(-1));
        QCOMPARE(set.items()[1].target, QString("a\nb"));
        NoteSet copy;
        copy.setFromJson(set.toJson());
        QCOMPARE(copy.items(), set.items());
    }

    // `memlens render --session` draws each view's notes: their text is in the SVG, and the
    // PNG has the requested size, in both themes.
    void renderAnnotatedViews()
    {
        auto view = openView(oomLoaded_, Page::Segments);
        view->state()->setSelectedEvent(oomEvent_);
        QApplication::processEvents();
        SegmentMapWidget *map = view->segments()->map();
        answer(view->noteEditor(NoteView::Segments), "hole next to the largest block");
        const QRect block = map->rectOfAllocation(largestBlock(map->state())->allocation);
        QVERIFY(view->noteEditor(NoteView::Segments)->create(NoteKind::Arrow, block.center() + QPoint(-80, 50), block.center()));
        view->showPage(Page::Stacks);
        QApplication::processEvents();
        FlameGraphWidget *flame = view->stacks()->flameGraph();
        answer(view->noteEditor(NoteView::FlameGraph), "optimizer state here");
        const QRectF frame = *flame->rectOfNode(flame->tree()->heaviestPath()[2]);
        QVERIFY(view->noteEditor(NoteView::FlameGraph)->create(NoteKind::Note, frame.center(), frame.center()));
        view->addOomNote();
        view->showPage(Page::Segments);
        QTemporaryDir dir;
        const QString session = dir.filePath("s.memlens");
        saveSession(session.toStdString(), captureSession(*view), true);
        const QString binary = QString::fromUtf8(MEMLENS_BINARY_DIR) + "/bin/memlens";
        const std::pair<const char *, const char *> views[] = {
            {"segments", "hole next to the largest block"}, {"flamegraph", "optimizer state here"}, {"timeline", "OOM: 12.0 MiB requested"}};
        for (const auto &[name, text] : views) {
            for (const char *theme : {"light", "dark"}) {
                QProcess p;
                const QString png = dir.filePath(QString("%1-%2.png").arg(name, theme));
                p.start(binary, {"render", "--session", session, "--view", name, "--theme", theme, "--size", "1200x700", "-o", png});
                QVERIFY(p.waitForFinished(60000));
                QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
                QCOMPARE(QImage(png).size(), QSize(1200, 700));
            }
            QProcess p;
            const QString svg = dir.filePath(QString("%1.svg").arg(name));
            p.start(binary, {"render", "--session", session, "--view", name, "-o", svg});
            QVERIFY(p.waitForFinished(60000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            bool ok = false;
            const QString svgTextContent = svgText(svg, &ok);
            QVERIFY(ok);
            QVERIFY2(svgTextContent.contains(QString::fromUtf8(text)), name);
        }
    }
};

QTEST_MAIN(TestNotes)
#include "tst_notes.moc"
