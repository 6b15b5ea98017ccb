#pragma once
// The one rule for pages that are hidden: a change the page must follow (the cursor moving)
// recomputes it at once while it is visible, and is remembered while it is hidden, so the
// page recomputes once when it is shown instead of on every cursor move behind the user's back.
#include <functional>
#include <QEvent>
#include <QObject>
#include <QWidget>

namespace memlens {

class RefreshWhenShown : public QObject {
public:
    RefreshWhenShown(QWidget *page, std::function<void()> refresh) : QObject(page), page_(page), refresh_(std::move(refresh))
    {
        page_->installEventFilter(this);
    }

    void request()
    {
        pending_ = !page_->isVisible();
        if (!pending_)
            refresh_();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == page_ && event->type() == QEvent::Show && pending_) {
            pending_ = false;
            refresh_();
        }
        return false;
    }

private:
    QWidget *page_;
    std::function<void()> refresh_;
    bool pending_ = false;
};

} // namespace memlens
