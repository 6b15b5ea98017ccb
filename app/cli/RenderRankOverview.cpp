#include "cli/RenderRankOverview.h"

#include "cache/SnapshotCache.h"
#include "export/ViewExport.h"
#include "ranks/RankOverviewPage.h"
#include "ranks/RankUnitsModel.h"

#include <QApplication>
#include <QEventLoop>
#include <QTableView>
#include <stdexcept>

namespace memlens {

void renderRankOverview(const std::string &folder, const std::optional<std::string> &view, QSize size, const QString &out, bool noCache)
{
    if (view && *view != "modules")
        throw std::invalid_argument("a folder of ranks draws its overview (no --view) or --view modules; --rank R draws one rank's " + *view);
    RankOverviewPage page(noCache ? nullptr : std::make_shared<const SnapshotCache>());
    try {
        page.openFolder(QString::fromStdString(folder));
    } catch (const std::exception &e) {
        throw UnreadableFile{e.what()};
    }
    // The shown step's ranks, and with several steps every dump's cell of the heatmap.
    bool ranksIn = !page.isSummarizing(), gridIn = page.folder().steps.size() < 2;
    QEventLoop wait;
    QObject::connect(&page, &RankOverviewPage::summarized, &wait, [&] { ranksIn = true, ranksIn && gridIn ? wait.quit() : void(); });
    QObject::connect(&page, &RankOverviewPage::gridSummarized, &wait, [&] { gridIn = true, ranksIn && gridIn ? wait.quit() : void(); });
    if (!ranksIn || !gridIn)
        wait.exec();
    QWidget *shown = &page;
    if (view) {
        if (page.unitsModel()->empty())
            throw UnreadableFile{folder + ": no modules page for this folder (no rank has FSDP or module-path unit marks)"};
        shown = page.unitsTable();
        shown->setParent(nullptr);
    }
    shown->setFixedSize(size);
    shown->show();
    QApplication::processEvents();
    for (QTableView *table : {page.table(), page.unitsTable()}) {
        table->clearFocus(); // a table given focus on show draws its current cell framed
        table->selectionModel()->clearCurrentIndex();
    }
    QApplication::processEvents();
    const QString error = out.endsWith(".svg", Qt::CaseInsensitive) ? exportSvg(shown, std::nullopt, out) : savePng(exportImage(shown, std::nullopt, 1.0), out);
    if (view)
        shown->setParent(&page);
    if (!error.isEmpty())
        throw std::runtime_error(error.toStdString());
}

} // namespace memlens
