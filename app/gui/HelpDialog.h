#pragma once
// A page of help in a dialog that scrolls and is fitted to the screen (a message box of the
// shortcuts was 808 px high, its rows and OK below a 700 px screen): the keyboard shortcuts, and
// the user guide (docs/guide.md, built into the binary).
#include <QString>

class QMenuBar;
class QWidget;

namespace memlens {

enum class HelpFormat { Html, Markdown };

// Shown non-modally; deleted when closed. `name` is its object name (tests find it by that).
void showHelpDialog(QWidget *parent, const QString &name, const QString &title, const QString &text, HelpFormat format);

// Every menu command with a shortcut, read from the menus themselves so none is left out, then
// the keys the pages take directly: an HTML table.
QString shortcutsTable(const QMenuBar *menus);

// The user guide's text (docs/guide.md as built in), without its pictures.
QString userGuideMarkdown();

} // namespace memlens
