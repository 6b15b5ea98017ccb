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
        if (const auto sort = cl.value("sort")) {
            if (*sort != "effort" && *sort != "saves")
                throw std::invalid_argument("--sort takes effort or saves, not '" + *sort + "'");
            request.bySaves = *sort == "saves";
        }
        if (const auto gpus = cl.integer("gpus"))
            request.gpus = static_cast<int>(std::clamp<long long>(*gpus, 1, 1 << 20));
        request.gpusSource = "--gpus";
        request.capacity = capacityOption(cl);
        request.device = cl.integer("device");

        const std::optional<CachedSnapshot> loaded = loadForCommand(file, cl.flag("no-cache"));
        if (!loaded)
            return 1;
        const AdviseAnswer answer = answerAdvise(file, *loaded->snapshot, request);
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
