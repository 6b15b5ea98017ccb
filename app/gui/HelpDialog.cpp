#include "gui/HelpDialog.h"

#include "state/ScreenFit.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QAction>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace memlens {

void showHelpDialog(QWidget *parent, const QString &name, const QString &title, const QString &text, HelpFormat format)
{
    auto *dialog = new QDialog(parent);
    dialog->setObjectName(name);
    dialog->setWindowTitle(title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QVBoxLayout(dialog);
    auto *browser = new QTextBrowser(dialog);
    browser->setOpenExternalLinks(true);
    if (format == HelpFormat::Markdown)
        browser->setMarkdown(text);
    else
        browser->setHtml(text);
    layout->addWidget(browser);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    layout->addWidget(buttons);
    fitOnScreen(dialog, format == HelpFormat::Markdown ? QSize(900, 900) : QSize(560, 820), parent);
    dialog->show();
}

QString shortcutsTable(const QMenuBar *menus)
{
    // Every menu command with a shortcut, read from the menus themselves so none is left out;
    // then the keys the pages take directly.
    QString rows;
    for (QAction *menu : menus->actions()) {
        if (!menu->menu())
            continue;
        for (QAction *a : menu->menu()->actions()) {
            if (a->shortcut().isEmpty())
                continue;
            rows += QString("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(), a->text().remove('&').toHtmlEscaped());
        }
    }
    return "<table>" + rows +
           QObject::tr("<tr><td colspan=2><i>On the timeline:</i></td></tr>"
              "<tr><td><b>← →</b> (Shift: ×100)</td><td>Step the event cursor</td></tr>"
              "<tr><td><b>Home / End</b></td><td>First / last event</td></tr>"
              "<tr><td><b>P</b></td><td>Jump to the peak</td></tr>"
              "<tr><td><b>O</b></td><td>Jump to the next OOM</td></tr>"
              "<tr><td><b>+ / − / 0</b></td><td>Zoom in / out / fit</td></tr>"
              "<tr><td><b>Backspace</b></td><td>Back to the range before the last zoom</td></tr>"
              "<tr><td><b>Wheel, drag</b></td><td>Zoom, pan</td></tr>"
              "<tr><td><b>Shift+drag</b></td><td>Zoom into a range</td></tr>"
              "<tr><td colspan=2><i>Notes (timeline, segment map, flame graph):</i></td></tr>"
              "<tr><td><b>N / A / B</b></td><td>Draw a note / arrow / box with the next click or drag</td></tr>"
              "<tr><td><b>Click, drag</b></td><td>Select, move (handles move one end)</td></tr>"
              "<tr><td><b>Double-click</b></td><td>Edit the text</td></tr>"
              "<tr><td><b>Right-click</b></td><td>Add or edit at the pointer</td></tr>"
              "<tr><td colspan=2><i>Rank overview:</i></td></tr>"
              "<tr><td><b>Enter / double-click</b></td><td>Open the rank (table) or its stitched run (heatmap)</td></tr>") +
           "</table>";
}

QString userGuideMarkdown()
{
    QFile guide(QStringLiteral(":/guide.md"));
    if (!guide.open(QIODevice::ReadOnly))
        return QObject::tr("The guide is not built into this binary: see docs/guide.md in memlens' sources.");
    // Its pictures are the README's screenshots, which an installed binary does not carry: the
    // text reads without them.
    QStringList lines = QString::fromUtf8(guide.readAll()).split('\n');
    lines.removeIf([](const QString &line) { return line.trimmed().startsWith(QStringLiteral("![")); });
    return lines.join('\n');
}

} // namespace memlens
