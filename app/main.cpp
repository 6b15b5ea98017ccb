#include "Application.h"
#include "CommandLine.h"
#include "DiffCommand.h"
#include "EstimateCommand.h"
#include "MainWindow.h"
#include "RenderCommand.h"
#include "SummaryCommand.h"
#include "style/Theme.h"

#include <QApplication>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "summary")
        return memlens::runSummaryCommand({args.begin() + 1, args.end()});
    if (!args.empty() && args.front() == "diff")
        return memlens::runDiffCommand({args.begin() + 1, args.end()});
    if (!args.empty() && args.front() == "estimate")
        return memlens::runEstimateCommand({args.begin() + 1, args.end()});
    if (!args.empty() && args.front() == "render")
        return memlens::runRenderCommand(argc, argv);
    if (!args.empty() && (args.front() == "--help" || args.front() == "-h")) {
        std::cout << "usage: memlens [--theme light|dark|system] [FILE…]       open the GUI\n"
                     "       memlens summary FILE [--device N] [--top K] [--at peak|oom|EVENT] [--json]\n"
                     "       memlens render FILE --view timeline|summary [--at …] [--range A:B] [--size WxH]\n"
                     "                      [--theme light|dark] -o OUT.png|OUT.svg\n"
                     "       memlens diff A B [--at peak|oom|EVENT] [--device N] [--top K] [--json]\n"
                     "       memlens estimate --model PRESET [--mode train|inference] [--precision …] [--optimizer …]\n"
                     "                      [--batch B] [--seq S] [--gpu PRESET] [--fit batch|seq] [--json] (README)\n";
        return 0;
    }
    try {
        if (!memlens::displayAvailable()) {
            std::cerr << "memlens: no display to open the GUI on (use `memlens summary` or `memlens render` headless)\n";
            return 1;
        }
        // QApplication takes its own options (-qwindowgeometry, -platform…) out of argv first.
        auto app = memlens::createApplication(argc, argv, false);
        const QStringList remaining = QCoreApplication::arguments().mid(1);
        std::vector<std::string> ours;
        for (const QString &a : remaining)
            ours.push_back(a.toStdString());
        memlens::CommandLine cl(ours, {"theme"}, {});
        if (!memlens::applyTheme(*app, QString::fromStdString(cl.value("theme").value_or("system"))))
            throw std::invalid_argument("--theme takes light, dark or system");
        memlens::MainWindow window;
        window.show();
        for (const std::string &file : cl.positional())
            window.openFile(QString::fromStdString(file));
        return app->exec();
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens: " << e.what() << '\n';
        return 2;
    }
}
