#pragma once
// One opened file: the immutable snapshot and, per device, its indices. Built off the GUI
// thread by DocumentLoader; shared read-only by every view.
#include "analysis/AllocationCategories.h"
#include "analysis/DeviceIndex.h"
#include "analysis/SnapshotSummary.h"
#include "analysis/TimelineLayout.h"
#include "model/Snapshot.h"

#include <QString>
#include <atomic>
#include <functional>
#include <map>
#include <memory>

namespace memlens {

struct DeviceData {
    std::unique_ptr<DeviceIndex> index;
    std::unique_ptr<AllocationCategories> categories;
    std::unique_ptr<TimelineLayout> layout;
    DeviceSummary summary;
};

class Document {
public:
    QString path;
    std::unique_ptr<Snapshot> snapshot;
    std::map<int, DeviceData> devices; // only devices with segments or trace entries

    const DeviceData *device(int d) const
    {
        auto it = devices.find(d);
        return it == devices.end() ? nullptr : &it->second;
    }
    QString fileName() const;
};

// Loads the file and builds every device's indices. `report(fraction, stage)` may be empty.
// `indexed`, if set, receives the document once indices and summaries exist and before the
// timeline's level-of-detail index is built (only `layout` is written after that).
// Throws LoadError or LoadCancelled.
std::shared_ptr<Document> buildDocument(const QString &path, const std::atomic<bool> *cancel,
                                        const std::function<void(double, const QString &)> &report,
                                        const std::function<void(std::shared_ptr<const Document>)> &indexed = {});

} // namespace memlens
