#include "state/ColorModeBox.h"

#include "state/ViewState.h"

namespace memlens {

ColorModeBox::ColorModeBox(ViewState *state, QWidget *parent) : QComboBox(parent)
{
    for (ColorMode mode : kColorModes) {
        const QString label = mode == ColorMode::Allocation ? tr("Colour per allocation")
                              : mode == ColorMode::CallSite ? tr("Colour per call site")
                                                            : tr("Colour per category");
        addItem(label, QVariant::fromValue(static_cast<int>(mode)));
    }
    setToolTip(tr("Per category: parameter green, gradient blue, optimizer state gold, activation red, "
                  "temporary purple, unknown grey"));
    setCurrentIndex(findData(static_cast<int>(state->colorMode())));
    connect(this, &QComboBox::currentIndexChanged, state, [this, state] { state->setColorMode(static_cast<ColorMode>(currentData().toInt())); });
    connect(state, &ViewState::colorModeChanged, this, [this](ColorMode mode) {
        const QSignalBlocker blocker(this);
        setCurrentIndex(findData(static_cast<int>(mode)));
    });
}

} // namespace memlens
