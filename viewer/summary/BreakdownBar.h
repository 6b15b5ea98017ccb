#pragma once
// A horizontal stacked bar: named parts in bytes, against a capacity line.
#include <QWidget>
#include <vector>

namespace memlens {

class BreakdownBar : public QWidget {
    Q_OBJECT

public:
    struct Part {
        QString name;
        double bytes;
        QColor color;
    };
    explicit BreakdownBar(QWidget *parent = nullptr);
    void setParts(std::vector<Part> parts, double capacity, double measured);
    QSize sizeHint() const override { return {600, 90}; }

protected:
    void paintEvent(QPaintEvent *) override;

private:
    std::vector<Part> parts_;
    double capacity_ = 0;
    double measured_ = 0;
};

} // namespace memlens
