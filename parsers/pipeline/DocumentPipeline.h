#pragma once
// The load pipeline: decode → index, categories and summary per device (stage 1, a Document)
// → the timeline's level-of-detail index (stage 2, TimelineLayouts). Each stage is handed to
// its callback as soon as it exists. Runs on whatever thread calls it.
#include "pipeline/Document.h"

#include "cache/CachedSnapshot.h"
#include "pipeline/StoredIndexes.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace memlens {

// What a load is doing, in order; each says so while its fraction moves.
enum class LoadStage { Reading, ReadingCache, Indexing, Summarising, Advising, PreparingTimeline };
// "Reading", "Reading from the cache", "Indexing the allocations", "Summarising", "Finding what
// would help", "Preparing the timeline"
std::string_view loadStageName(LoadStage stage);

// Like heaptrack's StopAfter: tests and benchmarks can stop after the stage they measure.
enum class StopAfter { Document, Timeline };

// A device's advice, asked by whoever runs the pipeline (the window and `render` ask the advise
// question, viewer/jobs/DeviceAdvice); `gpus`: the run's GPU count as the pipeline found it.
using DeviceAdvisor = std::function<Advice(const IndexedDevice &device, const Inferred<int> &gpus)>;

struct PipelineSink {
    std::function<void(double fraction, LoadStage stage)> progress; // may be empty
    std::function<void(std::shared_ptr<const Document>)> document;  // may be empty
    std::function<void(std::shared_ptr<const TimelineLayouts>)> timeline; // may be empty
    // Unset, the document comes without advice (each device's `advised` false).
    DeviceAdvisor advise;
    // When set with `advise` (and the timeline is asked for), the advice follows the first frame:
    // stage 1's document comes without it, and this last stage brings the same layouts with a
    // document that has it. Unset, stage 1's document has the advice.
    std::function<void(std::shared_ptr<const TimelineLayouts>)> advised;
    // When set (and the timeline is asked for), the layouts come first with a document of each
    // device's index and basic figures (basicDeviceFigures: no categories, `summarised` false),
    // before the summary: the window draws its timeline from them. `timeline` then brings the
    // same layouts with the summarised document.
    std::function<void(std::shared_ptr<const TimelineLayouts>)> indexed;
};

// Throws LoadError or LoadCancelled. With a `cache`, the decoded snapshot comes from it when it
// has a matching entry, and goes into it otherwise: beside the stages (`Now`: a command that
// waits for both), or after them (`WhenStarted`: the window, whose first frame is what counts).
// The indexes and timeline layouts are kept beside the entry after the stages, and a file read
// from the cache takes them from there.
void runDocumentPipeline(const std::string &path, const std::atomic<bool> *cancel, const PipelineSink &sink,
                         StopAfter stopAfter = StopAfter::Timeline, const SnapshotCache *cache = nullptr,
                         CacheWriting writing = CacheWriting::Now);

// The stages after reading, for a snapshot made in memory (a stitched run): `name` becomes the
// document's path, `gpus` the run's GPU count for the advice (ranks/RunGpus), `notes` its notes.
// A device's index and layout come from `kept` (pipeline/StoredIndexes; may be null) where it
// has parts that fit the snapshot, else they are built (and `kept->refused` says so). Returns
// the last stage's layouts (null with StopAfter::Document).
std::shared_ptr<const TimelineLayouts> runDocumentStages(const std::string &name, std::shared_ptr<const Snapshot> snapshot,
                                                         const Inferred<int> &gpus, const std::atomic<bool> *cancel,
                                                         const PipelineSink &sink, StopAfter stopAfter = StopAfter::Timeline,
                                                         std::vector<std::string> notes = {}, KeptParts *kept = nullptr);

// Stage 2 alone, for a document built earlier (tests adopt StopAfter::Document results).
std::shared_ptr<const TimelineLayouts> buildTimelineLayouts(std::shared_ptr<const Document> document);

// Both stages at once, for the headless commands and tests.
struct LoadedDocument {
    std::shared_ptr<const Document> document;
    std::shared_ptr<const TimelineLayouts> timeline; // null with StopAfter::Document
};
LoadedDocument loadDocument(const std::string &path, StopAfter stopAfter = StopAfter::Timeline, const SnapshotCache *cache = nullptr,
                            const DeviceAdvisor &advise = {});
// What `run` hands its sink, kept (for pipelines other than a file's, e.g. a stitched run's).
LoadedDocument collectStages(const std::function<void(const PipelineSink &)> &run, const DeviceAdvisor &advise = {});

} // namespace memlens
