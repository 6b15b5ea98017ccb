#include "state/ScreenFit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

#include <algorithm>

namespace memlens {

void fitOnScreen(QWidget *window, QSize wanted, const QWidget *over)
{
    QScreen *screen = over && over->screen() ? over->screen() : window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    if (!screen) {
        window->resize(wanted);
        return;
    }
    const QRect free = screen->availableGeometry();
    const QSize size = wanted.boundedTo(QSize(free.width() * 9 / 10, free.height() * 9 / 10)).expandedTo(window->minimumSizeHint().boundedTo(free.size()));
    window->resize(size);
    const QPoint centre = over ? over->geometry().center() : free.center();
    QPoint topLeft = centre - QPoint(size.width() / 2, size.height() / 2);
    topLeft.setX(std::clamp(topLeft.x(), free.left(), std::max(free.left(), free.right() + 1 - size.width())));
    topLeft.setY(std::clamp(topLeft.y(), free.top(), std::max(free.top(), free.bottom() + 1 - size.height())));
    window->move(topLeft);
}

} // namespace memlens
