#pragma once
// Light and dark palettes. By default memlens follows the system; `--theme` forces one (for
// screenshots and for desktops that do not tell Qt their colour scheme).
class QApplication;
class QString;

namespace memlens {

// "light", "dark" or "system"; returns false for anything else.
bool applyTheme(QApplication &app, const QString &theme);

} // namespace memlens
