#include "style/ColorModeBox.h"

#include "document/ViewState.h"

namespace memlens {

ColorModeBox::ColorModeBox(ViewState *state, QWidget *parent) : QComboBox(parent)
{
    addItems({tr("Colour per allocation"), tr("Colour per call site"), tr("Colour per category")});
    setToolTip(tr("Per category: parameter green, gradient blue, optimizer state gold, activation red, "
                  "temporary purple, unknown grey"));
    setCurrentIndex(static_cast<int>(state->colorMode()));
    connect(this, &QComboBox::currentIndexChanged, state, [state](int i) { state->setColorMode(static_cast<ColorMode>(i)); });
    connect(state, &ViewState::colorModeChanged, this, [this](ColorMode mode) {
        const QSignalBlocker blocker(this);
        setCurrentIndex(static_cast<int>(mode));
    });
}

} // namespace memlens
