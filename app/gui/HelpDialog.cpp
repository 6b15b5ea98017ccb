#include "gui/HelpDialog.h"

#include "state/ScreenFit.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
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
