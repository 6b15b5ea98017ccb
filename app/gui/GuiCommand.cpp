#include "gui/GuiCommand.h"

#include "cache/SnapshotCache.h"
#include "options/CommandLine.h"
#include "gui/Application.h"
#include "gui/MainWindow.h"
#include "pipeline/HeadStart.h"
#include "report/SessionFile.h"
#include "style/Theme.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <QApplication>
#include <set>
#include <string>
#include <vector>

namespace memlens {

namespace {

// The first argument that names an existing file, a session's snapshot for a session: what the
// window will open first, found before Qt takes its own options out of argv.
std::string firstFileNamed(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        std::error_code error;
        if (argv[i][0] == '-' || !std::filesystem::is_regular_file(argv[i], error))
            continue;
        const std::string path = argv[i];
        if (!path.ends_with(".memlens"))
            return path;
        try {
            return loadSession(path).snapshotPath;
        } catch (const std::exception &) {
            return {};
        }
    }
    return {};
}

} // namespace

int runGuiCommand(int argc, char **argv)
{
    try {
        if (!displayAvailable()) {
            std::cerr << "memlens: no display to open the GUI on (use `memlens summary` or `memlens render` headless)\n";
            return 1;
        }
        const bool noCache = std::any_of(argv + 1, argv + argc, [](const char *a) { return std::string_view(a) == "--no-cache"; });
        const auto cache = noCache ? nullptr : std::make_shared<const SnapshotCache>();
        if (const std::string first = firstFileNamed(argc, argv); !first.empty())
            beginHeadStart(first, cache);
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
        window.setSnapshotCache(cache);
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
