#pragma once
// QApplication set-up shared by the GUI and the headless renderer.
#include <memory>

class QApplication;

namespace memlens {

// Creates the application object. With `headless`, or when no display is available, the
// offscreen platform is used (Qt would otherwise abort without a display).
std::unique_ptr<QApplication> createApplication(int &argc, char **argv, bool headless);
bool displayAvailable();

} // namespace memlens
