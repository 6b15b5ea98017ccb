#include "cli/SummaryCommand.h"

#include "cli/CommandSnapshot.h"
#include "cli/RankSummaryCommand.h"
#include "options/CapacityOption.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/StacksQuestion.h"
#include "questions/StoredSummary.h"
#include "questions/SummaryQuestion.h"

#include <filesystem>
#include <iostream>

namespace memlens {

namespace {

// --folded: the live stacks for flamegraph.pl/speedscope, of one device (a folded file has no
// place to say which): the first unless --device.
int printFolded(const std::string &file, std::shared_ptr<const Snapshot> snapshot, const CommandLine &cl)
{
    StacksRequest request;
    request.device = cl.integer("device");
    request.at = cl.moment("at").value_or(Moment::peak());
    request.bottomUp = cl.flag("bottom-up");
    std::cout << stacksFoldedText(answerStacks(file, std::move(snapshot), request));
    return 0;
}

} // namespace

int runSummaryCommand(const std::vector<std::string> &args)
{
    for (const std::string &a : args) {
        std::error_code ec;
        if (!a.starts_with("--") && std::filesystem::is_directory(a, ec))
            return runRankSummaryCommand(args);
    }
    try {
        CommandLine cl(args, commandSpec("summary"), "FILE");
        if (cl.positional().size() != 1)
            throw std::invalid_argument(usageLine(commandSpec("summary"), "FILE"));
        SummaryRequest request;
        request.deviceTotal = capacityOption(cl).deviceTotal;
        request.top = static_cast<size_t>(*cl.integer("top"));
        request.device = cl.integer("device");
        request.at = cl.moment("at");
        const std::string file = cl.positional().front();
        const SummaryForm form = cl.flag("json") ? SummaryForm::Json : SummaryForm::Text;
        // Asked before: the answer kept beside the cache entry, not the snapshot indexed again.
        const SnapshotCache cache;
        const std::optional<CacheKey> key = cl.flag("no-cache") || cl.flag("folded") ? std::nullopt : SnapshotCache::keyOf(file);
        if (const std::optional<std::string> kept = key ? storedSummary(cache, *key, file, request, form) : std::nullopt) {
            std::cout << *kept;
            std::cout.flush();
            return 0;
        }
        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        if (cl.flag("folded"))
            return printFolded(file, loaded->snapshot, cl);
        const SummaryAnswer answer = answerSummary(file, loaded->snapshot, request); // the cache entry is written meanwhile
        const std::string printed = form == SummaryForm::Json ? summaryAnswerJson(answer) : summaryAnswerText(answer);
        std::cout << printed;
        std::cout.flush();
        if (key)
            storeSummary(cache, *key, answer, request, form, printed);
        return 0;
    } catch (const QuestionError &e) {
        return reportQuestionError("summary", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens summary: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
