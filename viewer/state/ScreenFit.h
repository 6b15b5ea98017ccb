#pragma once
// A window's first size and place on the screen it opens on: the size it asks for, or at most
// nine tenths of what the screen has free, and wholly on that screen, centred over `over` when
// given. The estimator (1,100 px wide) opened at x = -39 on a 1024 × 700 screen, its labels cut.
#include <QSize>

class QWidget;

namespace memlens {

void fitOnScreen(QWidget *window, QSize wanted, const QWidget *over = nullptr);

} // namespace memlens
