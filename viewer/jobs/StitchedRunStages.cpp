#include "jobs/StitchedRunStages.h"

#include "jobs/DeviceAdvice.h"
#include "model/LoadError.h"
#include "pipeline/RankStitch.h"
#include "questions/StitchQuestion.h"
#include "ranks/RunGpus.h"

namespace memlens {

void runStitchedStages(const std::string &folder, int rank, const std::atomic<bool> *cancel, const PipelineSink &sink,
                       const SnapshotCache *cache)
{
    StitchRequest request;
    request.rank = rank;
    request.reports = false; // the document's stages make the figures
    request.cancel = cancel;
    request.progress = [&](size_t done, size_t total) {
        if (sink.progress)
            sink.progress(total ? static_cast<double>(done) / static_cast<double>(total) : 0.0, LoadStage::Reading);
    };
    StitchAnswer answer = answerStitch(findRankFiles(folder), request, cache);
    if (cancel && cancel->load())
        throw LoadCancelled();
    const Inferred<int> gpus = runGpus(std::nullopt, {}, answer.run.dumps.back().file);
    runDocumentStages(stitchedRunName(folder, rank), std::move(answer.run.snapshot), gpus, cancel, sink, StopAfter::Timeline,
                      std::move(answer.run.warnings));
}

LoadedDocument loadStitchedRun(const std::string &folder, int rank, const SnapshotCache *cache)
{
    return collectStages([&](const PipelineSink &sink) { runStitchedStages(folder, rank, nullptr, sink, cache); }, adviseDevice);
}

} // namespace memlens
