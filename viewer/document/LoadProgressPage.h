#pragma once
// What a tab shows while its file is read: what is being done, a progress bar and Cancel (Esc).
#include <QWidget>

class QLabel;
class QProgressBar;

namespace memlens {

class LoadProgressPage : public QWidget {
    Q_OBJECT

public:
    explicit LoadProgressPage(QWidget *parent = nullptr);
    void start(const QString &text); // progress back to nothing
    void setProgress(double fraction, const QString &text);

signals:
    void cancelRequested();

private:
    QLabel *label_;
    QProgressBar *bar_;
};

} // namespace memlens
