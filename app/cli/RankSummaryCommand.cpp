#include "cli/RankSummaryCommand.h"

#include "model/LoadError.h"

#include "cache/SnapshotCache.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/RankOverviewQuestion.h"
#include "questions/StitchQuestion.h"

#include <iostream>
#include <thread>

namespace memlens {

int runRankSummaryCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("summary"), "DIR");
        if (cl.positional().size() != 1 || cl.flag("stitch") != cl.integer("rank").has_value())
            throw std::invalid_argument(usageLine(commandSpec("summary"), "DIR"));
        RankFolder folder;
        try {
            folder = findRankFiles(cl.positional().front());
        } catch (const std::exception &e) {
            std::cerr << "memlens: " << e.what() << '\n';
            return 1;
        }
        const SnapshotCache cache;
        const SnapshotCache *useCache = cl.flag("no-cache") ? nullptr : &cache;
        if (cl.flag("stitch")) {
            const StitchRequest request{static_cast<int>(*cl.integer("rank")), static_cast<size_t>(*cl.integer("top"))};
            StitchAnswer answer;
            try {
                answer = answerStitch(folder, request, useCache);
            } catch (const LoadError &e) { // no dump of the rank could be read or placed: the files, not the usage
                std::cerr << "memlens: " << e.what() << '\n';
                return 1;
            }
            std::cout << (cl.flag("json") ? stitchAnswerJson(answer) : stitchAnswerText(answer));
            std::cout.flush();
            return 0;
        }
        RankOverviewRequest request;
        request.step = cl.integer("step");
        request.threads = static_cast<unsigned>(cl.integer("threads").value_or(std::max(1u, std::thread::hardware_concurrency())));
        const RankOverviewAnswer answer = answerRankOverview(std::move(folder), request, useCache);
        std::cout << (cl.flag("json") ? rankOverviewAnswerJson(answer) : rankOverviewAnswerText(answer));
        std::cout.flush();
        return answer.anyUnread() ? 1 : 0;
    } catch (const QuestionError &e) {
        return reportQuestionError("summary", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens summary: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
