#include "analysis/FrameFilter.h"

#include <array>
#include <cctype>

namespace memlens {

bool isNoiseFrame(std::string_view name, std::string_view file)
{
    static constexpr std::array<std::string_view, 11> kNames = {
        "unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp", "_start",
        "__libc_start_main", "PyEval_", "PyObject_", "PyFunction_", "__clone", "start_thread", "pthread_",
    };
    static constexpr std::array<std::string_view, 10> kFiles = {
        "core/boxing", "/Register", "/Redispatch", "pythonrun.c", "Modules/main.c", "Objects/call.c",
        "Objects/methodobject.c", "pycore_ceval.h", "ceval.c", "cpython/abstract.h",
    };
    // C++ stacks (context="all", stacks="all") run through CPython's interpreter and libc:
    // Py*/_Py* functions and __libc_* outside Python files, and frames with no name at all.
    const bool pythonFile = file.ends_with(".py");
    // torch's generated dispatch registrations (RegisterCUDA_0.cpp, …), with or without a folder.
    if (file.starts_with("Register"))
        return true;
    if (name.empty() || (!pythonFile && (name.starts_with("_Py") || name.starts_with("__libc_") ||
                                          (name.starts_with("Py") && name.size() > 2 && (std::isupper(static_cast<unsigned char>(name[2])) || name[2] == '_')))))
        return true;
    for (std::string_view n : kNames) {
        if (name.find(n) != std::string_view::npos)
            return true;
    }
    for (std::string_view f : kFiles) {
        if (file.find(f) != std::string_view::npos)
            return true;
    }
    return false;
}

std::vector<FrameId> stackFrames(const Snapshot &snapshot, uint32_t stackId, bool hideNoise)
{
    std::vector<FrameId> result;
    for (FrameId id : snapshot.stacks.at(stackId)) {
        const Frame &f = snapshot.frames.at(id);
        if (hideNoise && isNoiseFrame(snapshot.strings.at(f.name), snapshot.strings.at(f.file)))
            continue;
        result.push_back(id);
    }
    return result;
}

} // namespace memlens
