#include "document/Document.h"

#include "decode/SnapshotLoader.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace memlens {

QString Document::fileName() const
{
    return QFileInfo(path).fileName();
}

std::shared_ptr<Document> buildDocument(const QString &path, const std::atomic<bool> *cancel,
                                        const std::function<void(double, const QString &)> &report,
                                        const std::function<void(std::shared_ptr<const Document>)> &indexed)
{
    auto doc = std::make_shared<Document>();
    doc->path = path;
    LoadControl control;
    control.cancel = cancel;
    if (report) {
        control.progress = [&](uint64_t done, uint64_t total) {
            report(total ? static_cast<double>(done) / static_cast<double>(total) : 0.0,
                   QCoreApplication::translate("memlens", "Reading"));
        };
    }
    doc->snapshot = loadSnapshot(path.toStdString(), control);
    const std::vector<int> devices = doc->snapshot->devices();
    for (size_t i = 0; i < devices.size(); ++i) {
        if (report)
            report(static_cast<double>(i) / static_cast<double>(devices.size()), QCoreApplication::translate("memlens", "Indexing"));
        DeviceData data;
        data.index = std::make_unique<DeviceIndex>(*doc->snapshot, devices[i], cancel);
        data.categories = std::make_unique<AllocationCategories>(*doc->snapshot, *data.index);
        data.summary = summarizeDevice(*doc->snapshot, *data.index, 50, data.categories.get());
        doc->devices.emplace(devices[i], std::move(data));
    }
    // Stage 1 done: the summary can be shown while the timeline index is built.
    if (indexed)
        indexed(doc);
    for (auto &[device, data] : doc->devices) {
        if (report)
            report(0.0, QCoreApplication::translate("memlens", "Preparing the timeline"));
        data.layout = std::make_unique<TimelineLayout>(*data.index);
    }
    return doc;
}

} // namespace memlens
