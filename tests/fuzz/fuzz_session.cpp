// libFuzzer target for the session (.memlens) decoder: any text gives a Session or a LoadError.
#include "model/LoadError.h"
#include "report/SessionFile.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        memlens::parseSession(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.memlens");
    } catch (const memlens::LoadError &) {
    }
    return 0;
}
