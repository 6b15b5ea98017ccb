#include "gui/GuiCommand.h"

#include "cache/SnapshotCache.h"
#include "options/CommandLine.h"
#include "gui/Application.h"
#include "gui/MainWindow.h"
#include "style/Theme.h"

#include <iostream>
#include <QApplication>
#include <set>
#include <string>
#include <vector>

namespace memlens {

int runGuiCommand(int argc, char **argv)
{
    try {
        if (!displayAvailable()) {
            std::cerr << "memlens: no display to open the GUI on (use `memlens summary` or `memlens render` headless)\n";
            return 1;
        }
        // QApplication takes its own options (-qwindowgeometry, -platform…) out of argv first.
        auto app = createApplication(argc, argv, false);
        const QStringList remaining = QCoreApplication::arguments().mid(1);
        std::vector<std::string> ours;
        for (const QString &a : remaining)
            ours.push_back(a.toStdString());
        CommandLine cl(ours, std::set<std::string>{"theme"}, std::set<std::string>{"no-cache"});
        if (!applyTheme(*app, QString::fromStdString(cl.value("theme").value_or("system"))))
            throw std::invalid_argument("--theme takes light, dark or system");
        MainWindow window;
        if (!cl.flag("no-cache"))
            window.setSnapshotCache(std::make_shared<const SnapshotCache>());
        window.show();
        for (const std::string &file : cl.positional())
            window.openFile(QString::fromStdString(file));
        return app->exec();
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
