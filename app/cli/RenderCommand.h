#pragma once
#include <string>

namespace memlens {

// The views `render` draws (every page, the flame graph alone, the estimator panel), joined.
std::string renderViewNames(const std::string &separator);

// `memlens render FILE --view VIEW [--at peak|oom|end|EVENT] [--range A:B] [--size WxH]
//  [--theme light|dark] -o OUT.png|OUT.svg`; returns the exit code.
int runRenderCommand(int argc, char **argv);

} // namespace memlens
