#pragma once
// The "colour per allocation / call site / category" menu, bound to a document's ViewState so
// the timeline and the segment map always colour alike.
#include <QComboBox>

namespace memlens {

class ViewState;

class ColorModeBox : public QComboBox {
    Q_OBJECT

public:
    ColorModeBox(ViewState *state, QWidget *parent = nullptr);
};

} // namespace memlens
