#include "style/Theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace memlens {

bool applyTheme(QApplication &app, const QString &theme)
{
    if (theme == "system")
        return true;
    if (theme != "light" && theme != "dark")
        return false;
    app.setStyle(QStyleFactory::create("Fusion"));
    if (theme == "light") {
        app.setPalette(app.style()->standardPalette());
        return true;
    }
    QPalette p;
    p.setColor(QPalette::Window, QColor(37, 39, 44));
    p.setColor(QPalette::WindowText, QColor(225, 227, 232));
    p.setColor(QPalette::Base, QColor(27, 29, 33));
    p.setColor(QPalette::AlternateBase, QColor(44, 47, 53));
    p.setColor(QPalette::ToolTipBase, QColor(50, 53, 60));
    p.setColor(QPalette::ToolTipText, QColor(235, 235, 240));
    p.setColor(QPalette::Text, QColor(225, 227, 232));
    p.setColor(QPalette::Button, QColor(48, 51, 58));
    p.setColor(QPalette::ButtonText, QColor(225, 227, 232));
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(110, 170, 255));
    p.setColor(QPalette::Highlight, QColor(70, 130, 220));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(140, 144, 150));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 122, 128));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 122, 128));
    app.setPalette(p);
    return true;
}

} // namespace memlens
