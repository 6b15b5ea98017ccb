#include "attribution/FrameRole.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace memlens {

namespace {

// The function of a demangled C++ name, without return type and parameters.
std::string_view functionOf(std::string_view name);

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

template <size_t N>
bool containsAny(std::string_view text, const std::array<std::string_view, N> &parts)
{
    return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return contains(text, p); });
}

// Windows paths name folders with backslashes; the rules below read '/'.
std::string slashed(std::string_view file)
{
    std::string out(file);
    std::replace(out.begin(), out.end(), '\\', '/');
    return out;
}

std::string lowered(std::string_view text)
{
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// Where torch's package begins in a path ("…/site-packages/torch/nn/…", a source checkout's
// "…/pytorch/torch/nn/…", a relative "torch/nn/…"), or npos. A folder merely named "torch" in a
// user's project counts only when what follows it is one of torch's own top-level entries.
size_t torchRoot(std::string_view path)
{
    static constexpr auto kTopLevel = std::to_array<std::string_view>({
        "nn/", "autograd/", "utils/", "distributed/", "_dynamo/", "_inductor/", "optim/", "cuda/", "amp/", "fx/",
        "_functorch/", "_higher_order_ops/", "_subclasses/", "_refs/", "_prims/", "_decomp/", "ao/", "export/",
        "_export/", "_library/", "jit/", "profiler/", "func/", "compiler/", "backends/", "multiprocessing/", "_C/",
        "_logging/", "distributions/", "testing/", "_ops.py", "_tensor.py", "functional.py", "overrides.py",
        "_compile.py", "random.py", "serialization.py", "storage.py", "_utils.py", "_jit_internal.py", "library.py",
        "_meta_registrations.py", "_guards.py", "__init__.py",
    });
    for (std::string_view packages : {std::string_view("site-packages/torch/"), std::string_view("dist-packages/torch/")}) {
        if (const size_t at = path.find(packages); at != std::string_view::npos)
            return at + packages.size() - 6;
    }
    for (size_t at = 0;; ++at) {
        at = path.find("torch/", at);
        if (at == std::string_view::npos)
            return at;
        if (at > 0 && path[at - 1] != '/')
            continue;
        const std::string_view rest = path.substr(at + 6);
        if (std::any_of(kTopLevel.begin(), kTopLevel.end(), [&](std::string_view t) { return rest.starts_with(t); }))
            return at;
    }
}

// Inductor's generated modules (torchinductor_<user>/xy/cxy….py) are torch's code, not the user's.
bool isGeneratedByTorch(std::string_view path)
{
    return contains(path, "/torchinductor_") || path.starts_with("<eval_with_key>");
}

// CPython's own library: …/lib/python3.12/x.py (not under site-packages), Windows' …/Python311/Lib/x.py.
bool isStandardLibrary(std::string_view path)
{
    if (path.starts_with("<frozen "))
        return true;
    const std::string lower = lowered(path);
    if (contains(lower, "site-packages/") || contains(lower, "dist-packages/"))
        return false;
    for (std::string_view lib : {std::string_view("/lib/python"), std::string_view("/lib64/python")}) {
        if (const size_t at = lower.find(lib); at != std::string::npos && at + lib.size() < lower.size() &&
                                                std::isdigit(static_cast<unsigned char>(lower[at + lib.size()])))
            return true;
    }
    const size_t python = lower.find("/python3");
    return python != std::string::npos && lower.find("/lib/", python) != std::string::npos;
}

FrameRole pythonRole(std::string_view file)
{
    const std::string path = slashed(file);
    if (isGeneratedByTorch(path) || torchRoot(path) != std::string_view::npos)
        return FrameRole::TorchPython;
    if (isStandardLibrary(path))
        return FrameRole::StdlibPython;
    return FrameRole::UserCode;
}

bool isPythonFile(std::string_view file)
{
    return file.ends_with(".py") || file.ends_with(".pyx") || file.ends_with(".pyw") || file.starts_with("<frozen ") ||
           file.starts_with("<eval_with_key>") || file == "<string>" || file == "<stdin>" || file.starts_with("<ipython-input");
}

// Operators that only make their output; what asked for it is the operator around them.
bool isFactoryOperator(std::string_view op)
{
    // Overloads included: aten::empty.memory_format is at::_ops::empty_memory_format.
    return op.starts_with("empty") || op.starts_with("new_empty") || op.starts_with("_empty") || op == "resize_";
}

// The caching allocator, the unwinder that records the stack, the dispatcher with its autograd,
// autocast and registration layers, the Python bindings, the autograd engine's loop (a node's
// apply is the user's operation in backward), the interpreter and libc.
bool isMachineryName(std::string_view name)
{
    static constexpr auto kParts = std::to_array<std::string_view>({
        "torch::unwind::", "CapturedTraceback", "gather_with_cpp", "CachingAllocator", "CachingHostAllocator",
        "c10::cuda::", "c10::hip::", "c10::xpu::", "c10::Allocator", "c10::StorageImpl", "c10::TensorImpl::",
        "c10::make_intrusive", "at::detail::empty", "at::native::empty", "at::empty", "at::native::new_empty",
        "at::native::resize", "resize_impl", "resize_output", "at::TensorIteratorBase::", "at::TensorIterator::",
        "at::impl::MetaBase::", "at::meta::", "set_output_raw_strided", "set_output_strided", "create_out(", "allocate_or_resize_outputs",
        "c10::impl::", "c10::Dispatcher", "c10::OperatorHandle", "c10::BoxedKernel", "c10::KernelFunction",
        "VariableType", "ADInplaceOrView", "at::autocast::", "at::functionalization::", "TraceType", "::wrapper_",
        "c10::function_ref", "THPVariable_",
        "THPModule_", "THPFunction_", "pybind11::", "torch::PythonArgParser", "torch::handle_torch_function",
        "torch::autograd::Engine::", "torch::autograd::call_function", "torch::autograd::validate_outputs",
        "torch::autograd::python::", "torch::autograd::Node::", "execute_native_thread_routine",
    });
    // The standard library's threads, std::function and invoke plumbing carry no intent of their
    // own (a function returning a std:: type is not one of them).
    if (name.empty() || name == "??" || name == "_start" || functionOf(name).starts_with("std::") || name.starts_with("_Py") ||
        name.starts_with("__libc_") ||
        name.starts_with("__clone") || name.starts_with("start_thread") || name.starts_with("pthread_") ||
        name == "cfunction_call" || name.starts_with("method_vectorcall") || name == "slot_tp_call")
        return true;
    // CPython's C API: PyObject_Call, PyEval_EvalCode, Py_RunMain (a C++ function named Py… is not).
    if (name.size() > 2 && name.starts_with("Py") && (std::isupper(static_cast<unsigned char>(name[2])) || name[2] == '_'))
        return true;
    return containsAny(name, kParts);
}

bool isMachineryFile(std::string_view file)
{
    static constexpr auto kParts = std::to_array<std::string_view>({
        "/Register", "core/boxing", "Redispatch", "VariableType", "ADInplaceOrView", "python_variable_methods.cpp",
        "python_torch_functions", "python_nn_functions.cpp", "python_arg_parser.cpp", "CUDACachingAllocator.cpp",
        "memory_snapshot.cpp", "pythonrun.c", "Modules/main.c", "Objects/", "ceval.c", "pycore_ceval.h", "cpython/abstract.h",
    });
    const std::string_view base = file.substr(file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/') + 1);
    return base.starts_with("Register") || containsAny(file, kParts);
}

// "at::_ops::mm::call(…)" → ("mm", true); "at::_ops::mm::redispatch(…)" → ("mm", false).
std::pair<std::string_view, bool> dispatcherOperator(std::string_view name)
{
    constexpr std::string_view kOps = "at::_ops::";
    if (!name.starts_with(kOps))
        return {{}, false};
    std::string_view rest = name.substr(kOps.size());
    const size_t end = rest.find("::");
    if (end == std::string_view::npos)
        return {{}, false};
    return {rest.substr(0, end), rest.substr(end).starts_with("::call")};
}

std::string_view functionOf(std::string_view name)
{
    // A template's demangled name begins with its return type: "std::vector<at::Tensor> at::native::f(…)".
    int depth = 0;
    size_t begin = 0;
    constexpr std::string_view kAnonymous = "(anonymous namespace)"; // a name's part, its space no separator
    for (size_t i = 0; i < name.size(); ++i) {
        if (name.substr(i).starts_with(kAnonymous)) {
            i += kAnonymous.size() - 1;
            continue;
        }
        if (name[i] == '<')
            ++depth;
        else if (name[i] == '>')
            --depth;
        else if (name[i] == ' ' && depth == 0)
            begin = i + 1;
        else if (name[i] == '(' && depth == 0)
            return name.substr(begin, i - begin);
    }
    return name.substr(begin);
}

} // namespace

FrameRole frameRole(std::string_view name, std::string_view file)
{
    if (isPythonFile(file))
        return pythonRole(file);
    // A profiler trace's frames: operators, unparsed Python calls, record_function ranges.
    if (file == "<cpu_op>") {
        if (name.starts_with("aten::"))
            return isFactoryOperator(name.substr(6)) ? FrameRole::Machinery : FrameRole::Operator;
        return FrameRole::NativeCode;
    }
    if (file == "<python_function>")
        return name.starts_with("nn.Module: ") ? FrameRole::TorchPython : FrameRole::NativeCode;
    if (file == "<user_annotation>" || file == "<gpu_user_annotation>")
        return FrameRole::Annotation;
    if (file.starts_with('<'))
        return FrameRole::Machinery;
    if (const auto [op, call] = dispatcherOperator(name); !op.empty())
        return call && !isFactoryOperator(op) ? FrameRole::Operator : FrameRole::Machinery;
    if (isMachineryName(name) || isMachineryFile(file))
        return FrameRole::Machinery;
    return FrameRole::NativeCode;
}

bool isPythonRole(FrameRole role)
{
    return role == FrameRole::UserCode || role == FrameRole::TorchPython || role == FrameRole::StdlibPython;
}

std::string operatorName(std::string_view name, std::string_view file)
{
    if (frameRole(name, file) != FrameRole::Operator)
        return {};
    if (file == "<cpu_op>")
        return std::string(name);
    return "aten::" + std::string(dispatcherOperator(name).first);
}

std::string autogradNodeName(std::string_view name)
{
    // A profiler trace names the node as an operator of its own ("NllLossBackward0") inside
    // "autograd::engine::evaluate_function: NllLossBackward0".
    constexpr std::string_view kEvaluate = "autograd::engine::evaluate_function: ";
    if (name.starts_with(kEvaluate))
        return std::string(name.substr(kEvaluate.size()));
    const size_t backward = name.rfind("Backward");
    if (backward != std::string_view::npos && backward > 0 && name.find_first_of(":( ") == std::string_view::npos &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(backward + 8), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::string(name);
    constexpr std::string_view kGenerated = "torch::autograd::generated::";
    if (!name.starts_with(kGenerated))
        return {};
    std::string_view node = name.substr(kGenerated.size());
    node = node.substr(0, std::min(node.find("::"), node.find("_apply_functional")));
    // Nodes are classes named for what they differentiate (MmBackward0, AccumulateGrad…), not
    // the helpers in generated::details.
    if (node.empty() || node == "details" || node.find('(') != std::string_view::npos)
        return {};
    return std::string(node);
}

std::string functionName(std::string_view name)
{
    return std::string(functionOf(name));
}


std::string torchFrameName(std::string_view name, std::string_view file)
{
    const std::string path = slashed(file);
    if (file.starts_with("<python_function>") || path.starts_with("<"))
        return path.starts_with("<eval_with_key>") ? "FX graph " + std::string(name) : std::string(name);
    if (isGeneratedByTorch(path))
        return "Inductor code " + std::string(name);
    const size_t root = torchRoot(path);
    if (root == std::string::npos)
        return std::string(name);
    std::string module = path.substr(root);
    if (module.ends_with(".py"))
        module.resize(module.size() - 3);
    if (module.ends_with("/__init__"))
        module.resize(module.size() - 9);
    std::replace(module.begin(), module.end(), '/', '.');
    return module + "." + std::string(name);
}

} // namespace memlens
