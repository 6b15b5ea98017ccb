#include "gui/Application.h"

#include <cstdlib>
#include <QApplication>

namespace memlens {

bool displayAvailable()
{
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
}

std::unique_ptr<QApplication> createApplication(int &argc, char **argv, bool headless)
{
    if (headless && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QApplication::setApplicationName("memlens");
    QApplication::setOrganizationName("memlens");
    QApplication::setApplicationVersion(MEMLENS_VERSION);
    auto app = std::make_unique<QApplication>(argc, argv);
    return app;
}

} // namespace memlens
