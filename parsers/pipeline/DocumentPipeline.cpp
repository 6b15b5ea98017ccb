#include "pipeline/DocumentPipeline.h"

#include "decode/SnapshotLoader.h"
#include "cache/CachedSnapshot.h"
#include "cache/StoredColumns.h"
#include "pipeline/HeadStart.h"
#include "model/LoadError.h"
#include "ranks/RunGpus.h"

#include <future>
#include <map>

namespace memlens {

std::string Document::fileName() const
{
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

int Document::openingDevice() const
{
    const DeviceData *best = nullptr;
    int bestDevice = 0;
    for (const auto &[d, data] : devices) {
        if (!data.summary.ooms.empty())
            return d;
        if (!best || data.summary.peakActiveBytes > best->summary.peakActiveBytes) {
            best = &data;
            bestDevice = d;
        }
    }
    return bestDevice;
}

IndexedDevice indexedDevice(const std::shared_ptr<const Document> &document, int d)
{
    const DeviceData *data = document->device(d);
    if (!data)
        return {document->path, document->snapshot, d, nullptr, nullptr};
    return {document->path, document->snapshot, d, data->index, std::shared_ptr<const DeviceFigures>(document, data)};
}

std::string_view loadStageName(LoadStage stage)
{
    switch (stage) {
    case LoadStage::Reading: return "Reading";
    case LoadStage::ReadingCache: return "Reading from the cache";
    case LoadStage::Indexing: return "Indexing the allocations";
    case LoadStage::Summarising: return "Summarising";
    case LoadStage::Advising: return "Finding what would help";
    case LoadStage::PreparingTimeline: return "Preparing the timeline";
    }
    return {};
}

void runDocumentPipeline(const std::string &path, const std::atomic<bool> *cancel, const PipelineSink &sink, StopAfter stopAfter,
                         const SnapshotCache *cache, CacheWriting writing)
{
    auto report = [&](double fraction, LoadStage stage) {
        if (sink.progress)
            sink.progress(fraction, stage);
    };
    LoadControl control;
    control.cancel = cancel;
    if (sink.progress) {
        control.progress = [&](uint64_t done, uint64_t total) {
            report(total ? static_cast<double>(done) / static_cast<double>(total) : 0.0, LoadStage::Reading);
        };
    }
    auto cacheProgress = [&](double fraction) { report(fraction, LoadStage::ReadingCache); };
    std::optional<CachedSnapshot> started = takeHeadStart(path, cache, control, cacheProgress);
    CachedSnapshot loaded = started ? std::move(*started) : loadSnapshotCached(path, control, cache, cacheProgress, writing);
    const bool keeping = cache && loaded.key && stopAfter == StopAfter::Timeline;
    std::optional<KeptDevices> read =
        keeping && loaded.fromCache ? readStoredIndexes(*cache, *loaded.key, *loaded.snapshot) : std::nullopt;
    KeptParts kept;
    kept.devices = std::move(read).value_or(KeptDevices{});
    const auto last = runDocumentStages(path, loaded.snapshot, runGpus(std::nullopt, {}, path), cancel, sink, stopAfter, {}, &kept);
    if (loaded.writing)
        loaded.writing->start(); // a no-op when it started at once
    // Kept again unless every device's index and layout came from what was kept.
    const bool allKept = !kept.refused && last && kept.devices.size() == last->layouts.size();
    if (keeping && !allKept && last) {
        LiveDevices devices;
        for (const auto &[device, layout] : last->layouts)
            devices.emplace(device, LiveDevice{last->document->device(device)->index.get(), layout.get()});
        storeIndexes(*cache, *loaded.key, devices);
    }
    if (keeping && last && !columnsStored(*cache, *loaded.key))
        storeColumns(*cache, *loaded.key, *loaded.snapshot);
}

namespace {

// A device's index from its kept parts when they fit the snapshot, else built (`refused` set
// when there were parts).
std::shared_ptr<const DeviceIndex> indexOf(const Snapshot &snapshot, int device, DeviceIndexParts *kept, std::atomic<bool> &refused,
                                           const std::atomic<bool> *cancel)
{
    if (kept) {
        try {
            return std::make_shared<const DeviceIndex>(snapshot, device, std::move(*kept));
        } catch (const std::invalid_argument &) {
            refused = true; // another index's parts
        }
    }
    return std::make_shared<const DeviceIndex>(snapshot, device, cancel);
}

// A device's layout, on another thread: from its kept parts when they fit its index, else built.
std::future<std::unique_ptr<const TimelineLayout>> startLayout(std::shared_ptr<const DeviceIndex> index, std::optional<TimelineLayoutParts> kept,
                                                               std::atomic<bool> &refused)
{
    return std::async(std::launch::async, [index = std::move(index), kept = std::move(kept), &refused]() mutable {
        if (kept) {
            try {
                return std::make_unique<const TimelineLayout>(*index, std::move(*kept));
            } catch (const std::invalid_argument &) {
                refused = true; // another layout's parts
            }
        }
        return std::make_unique<const TimelineLayout>(*index);
    });
}

// The document again, each device with its advice: the first one's index, categories and
// summary shared or copied, so the layouts built on them serve both.
std::shared_ptr<const Document> withAdvice(const std::shared_ptr<const Document> &first, const Inferred<int> &gpus, const DeviceAdvisor &advise)
{
    auto doc = std::make_shared<Document>();
    doc->path = first->path;
    doc->notes = first->notes;
    doc->snapshot = first->snapshot;
    for (const auto &[device, data] : first->devices) {
        DeviceData &d = doc->devices.emplace(device, data).first->second;
        d.advice = advise(indexedDevice(first, device), gpus);
        d.advised = true;
    }
    return doc;
}

} // namespace

std::shared_ptr<const TimelineLayouts> runDocumentStages(const std::string &name, std::shared_ptr<const Snapshot> snapshot,
                                                         const Inferred<int> &gpus, const std::atomic<bool> *cancel,
                                                         const PipelineSink &sink, StopAfter stopAfter, std::vector<std::string> notes,
                                                         KeptParts *kept)
{
    KeptParts none;
    KeptParts &use = kept ? *kept : none;
    auto report = [&](double fraction, LoadStage stage) {
        if (sink.progress)
            sink.progress(fraction, stage);
    };
    // The window draws the timeline first: the advice is not needed for it.
    const bool adviceLast = sink.advise && sink.advised && stopAfter == StopAfter::Timeline;
    auto doc = std::make_shared<Document>();
    doc->path = name;
    doc->notes = std::move(notes);
    const std::vector<int> devices = snapshot->devices();
    // The timeline's index needs only the DeviceIndex: it is built on another thread while
    // this one does the summary and the advice (the task shares ownership of the index).
    std::map<int, std::future<std::unique_ptr<const TimelineLayout>>> pending;
    std::vector<std::shared_ptr<const DeviceIndex>> indexes;
    // Each device's share of the bar moves through its stages (their usual shares of the time).
    auto at = [&](size_t i, double part) { return (static_cast<double>(i) + part) / static_cast<double>(devices.size()); };
    for (size_t i = 0; i < devices.size(); ++i) {
        report(at(i, 0.0), LoadStage::Indexing);
        const auto keptDevice = use.devices.find(devices[i]);
        const bool keptParts = keptDevice != use.devices.end();
        auto index = indexOf(*snapshot, devices[i], keptParts ? &keptDevice->second.index : nullptr, use.refused, cancel);
        if (stopAfter == StopAfter::Timeline)
            pending.emplace(devices[i],
                            startLayout(index, keptParts ? std::optional(std::move(keptDevice->second.layout)) : std::nullopt, use.refused));
        indexes.push_back(std::move(index));
    }
    std::map<int, std::shared_ptr<const TimelineLayout>> layouts;
    auto takeLayouts = [&] {
        for (auto &[device, layout] : pending)
            layouts.emplace(device, layout.get());
        pending.clear();
    };
    std::shared_ptr<const Document> basics; // the first frame's document, whose figures the summary completes
    if (sink.indexed && stopAfter == StopAfter::Timeline) {
        // The first frame: what the timeline draws needs the index and its layout, not the summary.
        auto first = std::make_shared<Document>();
        first->path = name;
        first->notes = doc->notes;
        first->snapshot = snapshot;
        for (size_t i = 0; i < devices.size(); ++i) {
            DeviceData data;
            static_cast<DeviceFigures &>(data) = basicDeviceFigures(*snapshot, *indexes[i]);
            data.index = indexes[i];
            data.advised = false;
            first->devices.emplace(devices[i], std::move(data));
        }
        basics = first;
        takeLayouts();
        if (cancel && cancel->load())
            throw LoadCancelled();
        auto indexed = std::make_shared<TimelineLayouts>();
        indexed->document = std::move(first);
        indexed->layouts = layouts;
        sink.indexed(std::move(indexed));
    }
    for (size_t i = 0; i < devices.size(); ++i) {
        report(at(i, 0.4), LoadStage::Summarising);
        DeviceData data;
        static_cast<DeviceFigures &>(data) = assembleDeviceFigures(*snapshot, *indexes[i], 50, basics ? basics->device(devices[i]) : nullptr);
        data.index = indexes[i];
        data.advised = sink.advise && !adviceLast;
        if (data.advised) {
            report(at(i, 0.7), LoadStage::Advising);
            // Asked while the document is made: its parts are borrowed for the call.
            const std::shared_ptr<const DeviceFigures> figures(std::shared_ptr<const void>(), &data);
            data.advice = sink.advise({name, snapshot, devices[i], data.index, figures}, gpus);
        }
        doc->devices.emplace(devices[i], std::move(data));
    }
    doc->snapshot = std::move(snapshot);
    std::shared_ptr<const Document> published = std::move(doc);
    if (sink.document)
        sink.document(published);
    if (stopAfter == StopAfter::Document)
        return nullptr;
    report(0.0, LoadStage::PreparingTimeline);
    takeLayouts();
    auto timeline = std::make_shared<TimelineLayouts>();
    timeline->document = published;
    timeline->layouts = std::move(layouts);
    if (cancel && cancel->load())
        throw LoadCancelled();
    if (sink.timeline)
        sink.timeline(timeline);
    if (!adviceLast)
        return timeline;
    report(0.0, LoadStage::Advising);
    auto advised = std::make_shared<TimelineLayouts>();
    advised->document = withAdvice(published, gpus, sink.advise);
    advised->layouts = timeline->layouts;
    if (cancel && cancel->load())
        throw LoadCancelled();
    sink.advised(advised);
    return advised;
}

std::shared_ptr<const TimelineLayouts> buildTimelineLayouts(std::shared_ptr<const Document> document)
{
    auto layouts = std::make_shared<TimelineLayouts>();
    layouts->document = std::move(document);
    for (const auto &[device, data] : layouts->document->devices)
        layouts->layouts.emplace(device, std::make_unique<const TimelineLayout>(*data.index));
    return layouts;
}

LoadedDocument collectStages(const std::function<void(const PipelineSink &)> &run, const DeviceAdvisor &advise)
{
    LoadedDocument loaded;
    PipelineSink sink;
    sink.advise = advise;
    sink.document = [&](std::shared_ptr<const Document> d) { loaded.document = std::move(d); };
    sink.timeline = [&](std::shared_ptr<const TimelineLayouts> t) { loaded.timeline = std::move(t); };
    run(sink);
    return loaded;
}

LoadedDocument loadDocument(const std::string &path, StopAfter stopAfter, const SnapshotCache *cache, const DeviceAdvisor &advise)
{
    return collectStages([&](const PipelineSink &sink) { runDocumentPipeline(path, nullptr, sink, stopAfter, cache); }, advise);
}

} // namespace memlens
