#pragma once

namespace memlens {

// `memlens render FILE --view VIEW [--at peak|oom|end|EVENT] [--range A:B] [--size WxH]
//  [--theme light|dark] -o OUT.png|OUT.svg`; returns the exit code.
int runRenderCommand(int argc, char **argv);

} // namespace memlens
