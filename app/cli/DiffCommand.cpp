#include "cli/DiffCommand.h"

#include "cli/CommandSnapshot.h"
#include "options/CommandLine.h"
#include "options/QuestionFailure.h"
#include "questions/DiffQuestion.h"
#include "report/JsonText.h"

#include <iostream>

namespace memlens {

int runDiffCommand(const std::vector<std::string> &args)
{
    try {
        CommandLine cl(args, commandSpec("diff"));
        if (cl.positional().size() != 2 || (cl.flag("json") && cl.flag("markdown")))
            throw std::invalid_argument(usageLine(commandSpec("diff")));
        DiffRequest request;
        request.device = cl.integer("device");
        request.at = cl.moment("at").value_or(Moment::peak());
        request.top = static_cast<size_t>(*cl.integer("top"));
        request.limits = {cl.number("fail-if-peak-grows", "a percentage"), cl.number("fail-if-reserved-grows", "a percentage")};
        const std::string &nameA = cl.positional()[0], &nameB = cl.positional()[1];
        const std::optional<CachedSnapshot> loadedA = loadForCommand(nameA, cl.flag("no-cache"));
        if (!loadedA)
            return 1;
        const std::optional<CachedSnapshot> loadedB = loadForCommand(nameB, cl.flag("no-cache"));
        if (!loadedB)
            return 1;
        const DiffAnswer answer = answerDiff(nameA, loadedA->snapshot, nameB, loadedB->snapshot, request);
        if (cl.flag("json"))
            std::cout << jsonText(diffAnswerJson(answer, false), 2) << '\n';
        else
            std::cout << (cl.flag("markdown") ? diffAnswerMarkdown(answer) : diffAnswerText(answer));
        std::cout.flush();
        // The gate: the report above is printed either way, the verdict goes to stderr.
        for (const std::string &line : diffGateFailures(answer))
            std::cerr << "memlens diff: " << line << '\n';
        return answer.gate.passed() ? 0 : 3;
    } catch (const QuestionError &e) {
        return reportQuestionError("diff", e);
    } catch (const std::invalid_argument &e) {
        std::cerr << "memlens diff: " << e.what() << '\n';
        return 2;
    }
}

} // namespace memlens
