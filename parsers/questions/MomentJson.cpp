#include "questions/MomentJson.h"

namespace memlens {

nlohmann::json momentJson(const MomentAnswer &answer)
{
    return summaryJsonObject(*answer.snapshot, answer.file, {answer.report})["devices"][0]["at"];
}

} // namespace memlens
