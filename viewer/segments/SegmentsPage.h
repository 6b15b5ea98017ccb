#pragma once
// The allocator at the selected event: its event list (filter by action, search by address),
// the segment map, fragmentation figures, a per-segment table, at an OOM the verdict, and the
// reserved bytes a what-if allocator setting would need (WhatIfPanel).
// Moving through the list moves the shared event cursor; the map follows every view's cursor.
#include "pipeline/Document.h"

#include <memory>
#include <optional>
#include <QWidget>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QSplitter;
class QLineEdit;
class QScrollArea;
class QTableView;

namespace memlens {

class EventListModel;
class SegmentMapWidget;
class SegmentTableModel;
class WhatIfPanel;
class ViewState;

class SegmentsPage : public QWidget {
    Q_OBJECT

public:
    SegmentsPage(ViewState *state, QWidget *parent = nullptr);

    SegmentMapWidget *map() const { return map_; }
    QTableView *eventList() const { return events_; }
    WhatIfPanel *whatIf() const { return whatIf_; }
    EventListModel *eventModel() const { return eventModel_; }
    QString figuresText() const;
    QString verdictText() const;
    std::optional<TracePoint> shownPoint() const { return shown_; } // none until a state is shown
    // Scrolls the map so that a point of it is in view.
    void revealMapPoint(const QPointF &point);
    // Scrolls to the first note on the map (a session or render opening on this page).
    void revealNotes();

signals:
    void showLiveTensors(); // the verdict's link to what was live at the OOM

private:
    QHBoxLayout *buildBar();
    QWidget *buildEventList(QWidget *parent);
    QSplitter *buildStatePanes(QWidget *parent);
    void connectState();
    void rebuild();
    void release();
    void showState(TracePoint at);
    void applyFilter();

    ViewState *state_;
    const DeviceData *device_ = nullptr; // the state's device, as of the last rebuild
    std::optional<TracePoint> shown_;
    bool deviceStale_ = false; // the device changed while the page was hidden
    bool syncingList_ = false; // moving the list to the cursor, not the cursor to the list
    QLabel *title_;
    QComboBox *scale_;
    QComboBox *actionFilter_;
    QLineEdit *search_;
    QTableView *events_;
    EventListModel *eventModel_;
    QLabel *figures_;
    QLabel *verdict_;
    QScrollArea *scroll_;
    SegmentMapWidget *map_;
    QTableView *segments_;
    SegmentTableModel *segmentModel_;
    WhatIfPanel *whatIf_;
};

} // namespace memlens
