#include "cli/AdviseCommand.h"

#include "cli/CommandSnapshot.h"
#include "options/CapacityOption.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/AdviseQuestion.h"
#include "report/JsonText.h"

#include <algorithm>
#include <iostream>

namespace memlens {

int runAdviseCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("advise"));
        if (cl.positional().size() != 1)
            throw std::invalid_argument(usageLine(commandSpec("advise")));
        const std::string file = cl.positional().front();
        AdviseRequest request;
        request.at = cl.moment("at");
        request.bySaves = cl.value("sort") == "saves"; // the table admits effort or saves only
        if (const auto gpus = cl.integer("gpus")) // within the table's 1 to 2^20
            request.gpus = static_cast<int>(*gpus);
        request.gpusSource = "--gpus";
        request.capacity = capacityOption(cl);
        request.device = cl.integer("device");

        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        const AdviseAnswer answer = answerAdvise(file, loaded->snapshot, request);
        std::cout << (cl.flag("json") ? jsonText(adviseAnswerJson(answer), 2) + "\n" : adviseAnswerText(answer));
        return 0;
    } catch (const QuestionError &e) {
        return reportQuestionError("advise", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens advise: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
