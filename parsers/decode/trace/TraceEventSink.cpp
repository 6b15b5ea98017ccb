#include "decode/trace/TraceEventSink.h"
#include "decode/trace/NameMatch.h"
#include "decode/trace/SortRuns.h"

#include "decode/input/JsonInput.h"
#include "decode/trace/ProfilerTraceDecoder.h"
#include "memory/PrefaultAhead.h"
#include "model/EventColumns.h"
#include "model/LoadError.h"

#include <algorithm>
#include <future>
#include <system_error>

namespace memlens {

namespace {

// The operators autocast runs in 16 bits (its lower-precision list) and the ones they call.
bool isProduct(std::string_view name)
{
    static constexpr std::string_view kProducts[] = {
        "aten::linear", "aten::matmul", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm", "aten::mv", "aten::addmv",
        "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
        "aten::convolution", "aten::_convolution", "aten::cudnn_convolution", "aten::scaled_dot_product_attention"};
    return std::find(std::begin(kProducts), std::end(kProducts), name) != std::end(kProducts) ||
           name.starts_with("aten::_scaled_dot_product_");
}

} // namespace

bool eventMatters(char ph, std::string_view cat, std::string_view name)
{
    if (ph == 'i' || ph == 'I')
        return nameIs(name, "[memory]") || nameIs(name, "[OutOfMemory]");
    return ph == 'X' && (nameIs(cat, "cpu_op") || nameIs(cat, "python_function") || nameIs(cat, "user_annotation") || nameIs(cat, "Operator"));
}

bool argsMatter(char ph, std::string_view cat, std::string_view name)
{
    if (ph == 'i' || ph == 'I')
        return nameIs(name, "[memory]") || nameIs(name, "[OutOfMemory]");
    // "Operator" (torch 1.9) becomes cpu_op in add(), or a label, which is no product.
    return ph == 'X' && (nameIs(cat, "cpu_op") || nameIs(cat, "Operator")) && isProduct(name);
}

int64_t traceThreadId(std::string_view text)
{
    return static_cast<int64_t>(std::hash<std::string_view>{}(text) & 0x7FFFFFFFFFFF);
}

FrameId TraceEventSink::frameFor(const TraceEvent &e)
{
    if (auto it = frameOfName_.find(e.name); it != frameOfName_.end())
        return it->second;
    Frame f;
    std::string_view file, name;
    int64_t line = 0;
    if (e.cat == "python_function" && parsePythonFunctionName(e.name, file, line, name)) {
        f.name = out_.strings.intern(name);
        f.file = out_.strings.intern(file);
        f.line = line;
    } else {
        f.name = out_.strings.intern(e.name);
        f.file = out_.strings.intern("<" + std::string(e.cat) + ">");
    }
    const FrameId id = out_.frames.intern(f);
    frameOfName_.emplace(std::string(e.name), id);
    return id;
}

void TraceEventSink::add(const TraceEvent &event)
{
    if (std::isnan(event.ts) || !eventMatters(event.ph, event.cat, event.name))
        return;
    // torch 1.9's Kineto traces file every CPU range under "Operator", record_function's too:
    // the ranges torch names itself (ProfilerStep#N, Optimizer.step#SGD.step, …zero_grad#) are
    // its record_function labels; a script's own cannot be told from an operator ("detach",
    // "AddBackward0") and stays one. Read as the categories torch files them under now.
    TraceEvent e = event;
    if (nameIs(e.cat, "Operator"))
        e.cat = nameStartsWith(e.name, "ProfilerStep#") || nameStartsWith(e.name, "Optimizer.step#") || nameStartsWith(e.name, "Optimizer.zero_grad#")
                    ? "user_annotation"
                    : "cpu_op";
    if (e.ph == 'X' && (nameIs(e.cat, "cpu_op") || nameIs(e.cat, "python_function") || nameIs(e.cat, "user_annotation"))) {
        const TimedRange range{e.ts, e.ts + std::max(0.0, e.dur)};
        ProductDtype dtype = ProductDtype::None;
        if (!e.inputType.empty() && nameIs(e.cat, "cpu_op") && isProduct(e.name))
            dtype = nameIs(e.inputType, "float")           ? ProductDtype::Fp32
                    : nameIs(e.inputType, "c10::BFloat16") ? ProductDtype::Bf16
                    : nameIs(e.inputType, "c10::Half")     ? ProductDtype::Fp16
                                                     : ProductDtype::None;
        auto [thread, added] = ops_.try_emplace(e.tid);
        if (added)
            thread->second.reserveOwnMapping();
        thread->second.push_back({range.start, range.end, frameFor(e), dtype});
        // record_function ranges (ProfilerStep#N, user labels) become phases, as in snapshots;
        // module calls and autograd operators say where forward and backward ran.
        if (nameIs(e.cat, "user_annotation")) {
            annotations_.push_back({out_.strings.intern(e.name), range});
            const bool optimizer = stepPartOfName(e.name) == StepPart::Optimizer;
            (optimizer ? structure_.optimizer : structure_.steps).push_back(range);
        } else if (nameIs(e.cat, "python_function") && nameStartsWith(e.name, "nn.Module: ")) {
            structure_.modules.push_back(range);
        } else if (nameIs(e.cat, "cpu_op") && nameStartsWith(e.name, "autograd::engine::evaluate_function")) {
            structure_.autograd.push_back(range);
        }
        return;
    }
    if (e.ph != 'i' && e.ph != 'I')
        return;
    const bool memory = nameIs(e.name, "[memory]");
    const bool oom = nameIs(e.name, "[OutOfMemory]");
    if (!(memory || oom))
        return;
    // A [memory] event without its Bytes or its Device Type (absent, or not a number) says
    // nothing reliable: left out and counted, for the summary's warning.
    if (!e.haveBytes || e.deviceType < 0) {
        ++out_.facts.malformedMemoryEvents;
        return;
    }
    // Device Type 1 is CUDA; everything else (0 = CPU) is counted as CPU memory.
    int device;
    if (e.deviceType == 1) {
        if (e.deviceId < 0 || e.deviceId > 63)
            throw DecodeError(LoadError::kNoOffset, "not a memory trace: CUDA device id " + std::to_string(e.deviceId) + " out of range");
        device = static_cast<int>(e.deviceId);
    } else {
        device = 64;
    }
    memory_.push_back({e.ts, e.bytes, e.addr, e.totalAllocated, e.totalReserved, memoryThread(e.tid), static_cast<uint8_t>(device), oom,
                       e.haveAddr || oom, e.haveTotals});
}

uint32_t TraceEventSink::memoryThread(int64_t tid)
{
    if (lastMemoryThread_ < memoryThreads_.size() && memoryThreads_[lastMemoryThread_] == tid)
        return lastMemoryThread_;
    const auto [it, added] = memoryThreadOfTid_.try_emplace(tid, static_cast<uint32_t>(memoryThreads_.size()));
    if (added)
        memoryThreads_.push_back(tid);
    return lastMemoryThread_ = it->second;
}

void TraceEventSink::finish(bool sawEvents, uint64_t offset)
{
    if (!sawEvents)
        throw DecodeError(offset, "not a profiler trace: no traceEvents list");
    out_.facts.format = FileFormat::ChromeTrace;
    out_.facts.hasTimes = true;
    int maxDevice = -1;
    for (const MemoryEvent &m : memory_)
        maxDevice = std::max(maxDevice, int{m.device});
    out_.traces.resize(static_cast<size_t>(maxDevice + 1));
    // Devices whose events lack addresses (torch ≤ 1.9) get made-up ones, see FileFacts::noAddresses;
    // devices whose events state no totals keep no totals columns.
    std::vector<char> noAddresses(out_.traces.size(), 0), hasTotals(out_.traces.size(), 0);
    std::vector<size_t> rows(out_.traces.size(), 0);
    for (const MemoryEvent &m : memory_) {
        noAddresses[static_cast<size_t>(m.device)] |= !m.hasAddr;
        hasTotals[static_cast<size_t>(m.device)] |= m.hasTotals;
        ++rows[static_cast<size_t>(m.device)];
    }
    const std::vector<ColumnRoom> rooms = reserveColumns(rows, hasTotals);
    // The threads' operators are sorted on another core meanwhile (a 1 GB trace: millions),
    // after it faulted in the columns' pages: the kernel does that at once for a column, where
    // filling them here took a fault a page (a third of this tail).
    auto sortOperators = [this](const std::vector<ColumnRoom> &toFault) {
        for (const ColumnRoom &room : toFault)
            prefault(room.base, room.bytes);
        const auto before = [](const OpInterval &a, const OpInterval &b) { return a.start != b.start ? a.start < b.start : a.end > b.end; };
        for (auto &[tid, ops] : ops_)
            sortRuns(ops.begin(), ops.end(), before);
    };
    std::future<void> operatorsSorted;
    try {
        if (memory_.size() >= kSortElsewhereFrom)
            operatorsSorted = std::async(std::launch::async, sortOperators, rooms);
    } catch (const std::system_error &) {
        // No thread to be had: sorted below, on this one.
    }
    if (!operatorsSorted.valid())
        sortOperators({});
    // Equal times keep file order: sortRuns is stable.
    sortRuns(memory_.begin(), memory_.end(), [](const MemoryEvent &a, const MemoryEvent &b) { return a.ts < b.ts; });
    if (operatorsSorted.valid())
        operatorsSorted.get();
    countOperatorDtypes();
    const bool cpu = appendMemoryEvents(noAddresses);
    for (size_t device = 0; device < out_.traces.size(); ++device) {
        out_.facts.noAddresses |= noAddresses[device] != 0;
        if (!hasTotals[device]) {
            out_.traces[device].allocatedAfter = {};
            out_.traces[device].reservedAfter = {};
        }
    }
    if (out_.streams.empty())
        out_.streams.push_back(0);
    if (cpu)
        out_.facts.cpuDevice = 64;
    addPhaseMarks(maxDevice);
}

std::vector<TraceEventSink::ColumnRoom> TraceEventSink::reserveColumns(const std::vector<size_t> &rows, const std::vector<char> &hasTotals)
{
    std::vector<ColumnRoom> rooms;
    for (size_t device = 0; device < rows.size(); ++device) {
        EventTable &t = out_.traces[device];
        const size_t n = rows[device];
        auto reserve = [&](auto column) {
            auto &c = t.*column;
            c.reserve(n);
            const PrefaultAhead::Column filled = PrefaultAhead::Column::of(c);
            rooms.push_back({filled.base, n * filled.bytesPerRow});
        };
        forEachDenseColumn(reserve);
        if (hasTotals[device])
            forEachTotalsColumn(reserve);
    }
    return rooms;
}

void TraceEventSink::countOperatorDtypes()
{
    OperatorDtypes &n = out_.facts.operatorDtypes;
    struct Open {
        const OpInterval *op;
        bool castInside;
    };
    std::vector<Open> open; // the products open at the current one, outermost first
    for (const auto &[tid, ops] : ops_) {
        open.clear();
        for (const OpInterval &op : ops) {
            if (op.dtype == ProductDtype::None)
                continue;
            while (!open.empty() && open.back().op->end < op.start)
                open.pop_back();
            if (open.empty()) {
                ++(op.dtype == ProductDtype::Fp32 ? n.fp32 : op.dtype == ProductDtype::Bf16 ? n.bf16 : n.fp16);
            } else if (Open &outer = open.back(); outer.op->dtype == ProductDtype::Fp32 && op.dtype != ProductDtype::Fp32 && !outer.castInside) {
                outer.castInside = true;
                ++n.cast;
            }
            open.push_back({&op, false});
        }
    }
}

void TraceEventSink::operatorsOpenAt(const MemoryEvent &m, OpenOperators &thread, std::vector<FrameId> &frames)
{
    // Operators sorted by start; a sweep keeps the open ones (they nest) as a stack.
    auto &stack = thread.open;
    if (const PodArray<OpInterval> *ops = thread.ops) {
        while (thread.next < ops->size() && (*ops)[thread.next].start <= m.ts) {
            const OpInterval *op = &(*ops)[thread.next++];
            while (!stack.empty() && stack.back()->end < op->start)
                stack.pop_back();
            stack.push_back(op);
        }
    }
    while (!stack.empty() && stack.back()->end < m.ts)
        stack.pop_back();
    frames.clear();
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if ((*it)->end >= m.ts)
            frames.push_back((*it)->frame);
    }
}

bool TraceEventSink::appendMemoryEvents(const std::vector<char> &noAddresses)
{
    std::vector<std::unordered_map<uint64_t, std::vector<uint64_t>>> openBySize(out_.traces.size());
    uint64_t nextAddress = 0;
    auto madeUpAddress = [&](const MemoryEvent &m, uint64_t size) {
        auto &open = openBySize[static_cast<size_t>(m.device)][size];
        if (m.bytes < 0 && !open.empty()) {
            const uint64_t addr = open.back();
            open.pop_back();
            return addr;
        }
        nextAddress += 512;
        if (m.bytes >= 0)
            open.push_back(nextAddress);
        return nextAddress;
    };
    bool cpu = false;
    std::vector<OpenOperators> threads(memoryThreads_.size());
    for (size_t i = 0; i < threads.size(); ++i) {
        if (auto it = ops_.find(memoryThreads_[i]); it != ops_.end())
            threads[i].ops = &it->second;
    }
    std::vector<FrameId> frames;
    for (const MemoryEvent &m : memory_) {
        operatorsOpenAt(m, threads[m.thread], frames);
        const StackId stackId = out_.stacks.intern(frames);
        if (!frames.empty())
            out_.facts.hasFrames = true;
        EventTable &t = out_.traces[static_cast<size_t>(m.device)];
        if (m.device == 64)
            cpu = true;
        const int64_t ts = jsonInt64(std::floor(m.ts));
        auto push = [&](Action action, uint64_t addr, uint64_t size) {
            t.action.push_back(action);
            t.addr.push_back(addr);
            t.size.push_back(size);
            t.stream.push_back(StreamIndex(0));
            t.timeUs.push_back(ts);
            t.stack.push_back(stackId);
            t.allocatedAfter.push_back(m.totalAllocated);
            t.reservedAfter.push_back(m.totalReserved);
        };
        // The magnitude as unsigned: negating INT64_MIN itself would be undefined.
        const uint64_t magnitude = m.bytes >= 0 ? static_cast<uint64_t>(m.bytes) : 0 - static_cast<uint64_t>(m.bytes);
        const uint64_t addr = m.oom || !noAddresses[static_cast<size_t>(m.device)] ? m.addr : madeUpAddress(m, magnitude);
        if (m.oom)
            push(Action::Oom, 0, magnitude);
        else if (m.bytes >= 0)
            push(Action::Alloc, addr, magnitude);
        else
            push(Action::FreeCompleted, addr, magnitude);
    }
    return cpu;
}

void TraceEventSink::addPhaseMarks(int maxDevice)
{
    // Every device's memory ran under the same operators, so each gets the phases.
    for (const InferredPhase &p : inferPhases(std::move(structure_)))
        annotations_.push_back({out_.strings.intern(p.name), p.range});
    for (int device = 0; device <= maxDevice; ++device) {
        if (out_.traces[static_cast<size_t>(device)].count() == 0)
            continue;
        for (const auto &[name, range] : annotations_) {
            out_.phaseMarks.push_back({device, name, true, jsonInt64(std::floor(range.start))});
            out_.phaseMarks.push_back({device, name, false, jsonInt64(std::floor(range.end))});
        }
    }
    out_.facts.hasPhases = !out_.phaseMarks.empty();
}

} // namespace memlens
