#pragma once
// Shown when no document is open: open a file, open the bundled example, recent files.
#include <QWidget>

class QLabel;
class QListWidget;

namespace memlens {

class StartPage : public QWidget {
    Q_OBJECT

public:
    explicit StartPage(QWidget *parent = nullptr);
    void setRecentFiles(const QStringList &files);
    QListWidget *recentList() const { return recent_; }
    QLabel *recentHeading() const { return recentHeading_; }

signals:
    void openRequested();
    void exampleRequested();
    void recentRequested(const QString &path);

private:
    QLabel *recentHeading_;
    QListWidget *recent_;
};

} // namespace memlens
