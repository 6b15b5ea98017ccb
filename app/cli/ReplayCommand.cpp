#include "cli/ReplayCommand.h"

#include "cli/CommandSnapshot.h"
#include "options/CapacityOption.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/ReplayQuestion.h"
#include "report/JsonText.h"

#include <iostream>

namespace memlens {

int runReplayCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("replay"));
        if (cl.positional().size() != 1)
            throw std::invalid_argument(usageLine(commandSpec("replay")));
        const std::string file = cl.positional().front();
        ReplayRequest request;
        request.allocConf = cl.value("alloc-conf");
        request.capacity = capacityOption(cl);
        request.device = cl.integer("device");
        admitReplayRequest(request); // before a long load
        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        const ReplayAnswer answer = answerReplay(file, *loaded->snapshot, request);
        std::cout << (cl.flag("json") ? jsonText(replayAnswerJson(answer), 2) + "\n" : replayAnswerText(answer));
        return 0;
    } catch (const QuestionError &e) {
        return reportQuestionError("replay", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens replay: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
