#include "gui/Application.h"

#include <QApplication>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace memlens {

namespace {

// Without a login session (ssh, a container, CI) XDG_RUNTIME_DIR is unset and Qt says so on
// stderr, so a one-line refusal of `memlens render` read as two. The directory Qt would fall back
// to, made the same way: private to this user (0700, owned, not a link), else left to Qt.
void provideRuntimeDirectory()
{
    if (const char *set = std::getenv("XDG_RUNTIME_DIR"); set && *set)
        return;
    std::error_code error;
    const std::filesystem::path dir = std::filesystem::temp_directory_path(error) / ("memlens-runtime-" + std::to_string(::getuid()));
    if (error)
        return;
    ::mkdir(dir.c_str(), 0700);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() && (st.st_mode & 0777) == 0700)
        setenv("XDG_RUNTIME_DIR", dir.c_str(), 1);
}

} // namespace

bool displayAvailable()
{
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
}

std::unique_ptr<QApplication> createApplication(int &argc, char **argv, bool headless)
{
    if (headless && !std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    provideRuntimeDirectory();
    QApplication::setApplicationName("memlens");
    QApplication::setOrganizationName("memlens");
    QApplication::setApplicationVersion(MEMLENS_VERSION);
    auto app = std::make_unique<QApplication>(argc, argv);
    return app;
}

} // namespace memlens
