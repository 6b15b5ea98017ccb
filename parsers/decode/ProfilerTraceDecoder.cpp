#include "decode/ProfilerTraceDecoder.h"

#include "decode/JsonInput.h"
#include "decode/ProfilerPhases.h"
#include "model/LoadError.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace memlens {

namespace {

struct MemoryEvent {
    double ts;
    int64_t tid;
    int device;
    int64_t bytes; // < 0: free
    uint64_t addr;
    uint64_t totalAllocated;
    uint64_t totalReserved;
    bool oom;
    bool hasAddr;
    bool hasTotals;
    uint32_t order; // position in the file, to keep equal timestamps stable
};

struct OpInterval {
    double start;
    double end;
    uint32_t frame;
};

enum class Field { None, Ph, Name, Cat, Pid, Tid, Ts, Dur, DeviceType, DeviceId, Addr, Bytes, TotalAllocated, TotalReserved };

class TraceSax {
public:
    explicit TraceSax(Snapshot &out) : out_(out) {}

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(int64_t v) { return number(static_cast<double>(v), v, static_cast<uint64_t>(v)); }
    bool number_unsigned(uint64_t v) { return number(static_cast<double>(v), static_cast<int64_t>(v), v); }
    bool number_float(double v, const std::string &) { return number(v, jsonInt64(v), jsonUint64(v)); }
    bool string(std::string &s)
    {
        if (inEvent()) {
            switch (field_) {
            case Field::Ph: ev_.ph = s.empty() ? 0 : s[0]; break;
            case Field::Name: ev_.name = s; break;
            case Field::Cat: ev_.cat = s; break;
            case Field::Tid: ev_.tid = static_cast<int64_t>(std::hash<std::string>{}(s) & 0x7FFFFFFFFFFF); break;
            default: break;
            }
        }
        return value();
    }
    bool binary(nlohmann::json::binary_t &) { return value(); }
    bool start_object(size_t)
    {
        ++depth_;
        if (depth_ == 1)
            sawRoot_ = true;
        if (inEvents_ && depth_ == 3)
            ev_ = {};
        if (inEvents_ && depth_ == 4)
            argsOpen_ = argsKey_;
        field_ = Field::None;
        return true;
    }
    bool end_object()
    {
        if (inEvents_ && depth_ == 4)
            argsOpen_ = false;
        if (inEvents_ && depth_ == 3)
            finishEvent();
        --depth_;
        field_ = Field::None;
        return true;
    }
    bool start_array(size_t)
    {
        ++depth_;
        if (depth_ == 2 && rootKey_ == "traceEvents") {
            inEvents_ = true;
            sawEvents_ = true;
        }
        field_ = Field::None;
        return true;
    }
    bool end_array()
    {
        if (depth_ == 2)
            inEvents_ = false;
        --depth_;
        field_ = Field::None;
        return true;
    }
    bool key(std::string &k)
    {
        if (depth_ == 1)
            rootKey_ = k;
        field_ = Field::None;
        if (!inEvents_)
            return true;
        if (depth_ == 3) {
            static const std::unordered_map<std::string, Field> fields = {
                {"ph", Field::Ph}, {"name", Field::Name}, {"cat", Field::Cat}, {"pid", Field::Pid},
                {"tid", Field::Tid}, {"ts", Field::Ts}, {"dur", Field::Dur}};
            if (auto it = fields.find(k); it != fields.end())
                field_ = it->second;
        } else if (depth_ == 4 && argsOpen_) {
            static const std::unordered_map<std::string, Field> args = {
                {"Device Type", Field::DeviceType}, {"Device Id", Field::DeviceId}, {"Addr", Field::Addr},
                {"Bytes", Field::Bytes}, {"Total Allocated", Field::TotalAllocated}, {"Total Reserved", Field::TotalReserved}};
            if (auto it = args.find(k); it != args.end())
                field_ = it->second;
        }
        if (depth_ == 3)
            argsKey_ = k == "args";
        return true;
    }
    bool parse_error(size_t position, const std::string &, const nlohmann::detail::exception &e)
    {
        throwJsonError(position, e);
    }

    void finish(uint64_t offset);

private:
    struct Event {
        char ph = 0;
        std::string name, cat;
        int64_t tid = 0;
        double ts = NAN, dur = 0;
        int64_t deviceType = -1, deviceId = -1, bytes = 0;
        uint64_t addr = 0, totalAllocated = 0, totalReserved = 0;
        bool haveBytes = false;
        bool haveAddr = false;
        bool haveTotals = false;
    };

    bool inEvent() const { return inEvents_ && (depth_ == 3 || (depth_ == 4 && argsOpen_)); }
    bool value()
    {
        field_ = Field::None;
        return true;
    }
    bool number(double d, int64_t i, uint64_t u)
    {
        if (inEvent()) {
            switch (field_) {
            case Field::Tid: ev_.tid = i; break;
            case Field::Ts: ev_.ts = d; break;
            case Field::Dur: ev_.dur = d; break;
            case Field::DeviceType: ev_.deviceType = i; break;
            case Field::DeviceId: ev_.deviceId = i; break;
            case Field::Addr: ev_.addr = u; ev_.haveAddr = true; break;
            case Field::Bytes: ev_.bytes = i; ev_.haveBytes = true; break;
            case Field::TotalAllocated: ev_.totalAllocated = u; ev_.haveTotals = true; break;
            case Field::TotalReserved: ev_.totalReserved = u; break;
            default: break;
            }
        }
        return value();
    }
    void finishEvent();
    uint32_t frameFor(const Event &e);

    Snapshot &out_;
    int depth_ = 0;
    bool sawRoot_ = false;
    bool sawEvents_ = false;
    bool inEvents_ = false;
    bool argsKey_ = false;
    bool argsOpen_ = false;
    std::string rootKey_;
    Field field_ = Field::None;
    Event ev_;
    std::vector<MemoryEvent> memory_;
    std::unordered_map<int64_t, std::vector<OpInterval>> ops_; // by thread
    std::unordered_map<std::string, uint32_t> frameOfName_;
    std::vector<std::pair<uint32_t, TimedRange>> annotations_; // user annotations: (name, range)
    OperatorRanges structure_;
};

uint32_t TraceSax::frameFor(const Event &e)
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
        f.file = out_.strings.intern("<" + e.cat + ">");
    }
    const uint32_t id = out_.frames.intern(f);
    frameOfName_.emplace(e.name, id);
    return id;
}

void TraceSax::finishEvent()
{
    const Event &e = ev_;
    if (std::isnan(e.ts))
        return;
    if (e.ph == 'X' && (e.cat == "cpu_op" || e.cat == "python_function" || e.cat == "user_annotation")) {
        const TimedRange range{e.ts, e.ts + std::max(0.0, e.dur)};
        ops_[e.tid].push_back({range.start, range.end, frameFor(e)});
        // record_function ranges (ProfilerStep#N, user labels) become phases, as in snapshots;
        // module calls and autograd operators say where forward and backward ran.
        if (e.cat == "user_annotation") {
            annotations_.push_back({out_.strings.intern(e.name), range});
            const bool optimizer = stepPartOfName(e.name) == StepPart::Optimizer;
            (optimizer ? structure_.optimizer : structure_.steps).push_back(range);
        } else if (e.cat == "python_function" && e.name.starts_with("nn.Module: ")) {
            structure_.modules.push_back(range);
        } else if (e.cat == "cpu_op" && e.name.starts_with("autograd::engine::evaluate_function")) {
            structure_.autograd.push_back(range);
        }
        return;
    }
    if (e.ph != 'i' && e.ph != 'I')
        return;
    const bool memory = e.name == "[memory]";
    const bool oom = e.name == "[OutOfMemory]";
    if (!(memory || oom) || !e.haveBytes)
        return;
    // Device Type 1 is CUDA; everything else (0 = CPU) is counted as CPU memory.
    int device;
    if (e.deviceType == 1) {
        if (e.deviceId < 0 || e.deviceId > 63)
            throw DecodeError(0, "not a memory trace: CUDA device id " + std::to_string(e.deviceId) + " out of range");
        device = static_cast<int>(e.deviceId);
    } else {
        device = 64;
    }
    memory_.push_back({e.ts, e.tid, device, e.bytes, e.addr, e.totalAllocated, e.totalReserved, oom, e.haveAddr || oom,
                       e.haveTotals, static_cast<uint32_t>(memory_.size())});
}

void TraceSax::finish(uint64_t offset)
{
    if (!sawRoot_ || !sawEvents_)
        throw DecodeError(offset, "not a profiler trace: no traceEvents list");
    out_.facts.format = FileFormat::ChromeTrace;
    out_.facts.hasTimes = true;
    std::stable_sort(memory_.begin(), memory_.end(), [](const MemoryEvent &a, const MemoryEvent &b) {
        return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    // Per thread: operators sorted by start; a sweep keeps the open ones (they nest) as a stack.
    std::unordered_map<int64_t, size_t> nextOp;
    std::unordered_map<int64_t, std::vector<const OpInterval *>> open;
    for (auto &[tid, ops] : ops_)
        std::sort(ops.begin(), ops.end(), [](const OpInterval &a, const OpInterval &b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
    int maxDevice = -1;
    for (const MemoryEvent &m : memory_)
        maxDevice = std::max(maxDevice, m.device);
    out_.traces.resize(static_cast<size_t>(maxDevice + 1));
    // Devices whose events lack addresses (torch ≤ 1.9) get made-up ones, see FileFacts::noAddresses;
    // devices whose events state no totals keep no totals columns.
    std::vector<char> noAddresses(out_.traces.size(), 0), hasTotals(out_.traces.size(), 0);
    for (const MemoryEvent &m : memory_) {
        noAddresses[static_cast<size_t>(m.device)] |= !m.hasAddr;
        hasTotals[static_cast<size_t>(m.device)] |= m.hasTotals;
    }
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
    std::vector<uint32_t> frames;
    for (const MemoryEvent &m : memory_) {
        auto &stack = open[m.tid];
        if (auto it = ops_.find(m.tid); it != ops_.end()) {
            size_t &next = nextOp[m.tid];
            while (next < it->second.size() && it->second[next].start <= m.ts) {
                const OpInterval *op = &it->second[next++];
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
        const uint32_t stackId = out_.stacks.intern(frames);
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
            t.stream.push_back(0);
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

} // namespace

bool parsePythonFunctionName(std::string_view text, std::string_view &file, int64_t &line, std::string_view &name)
{
    const auto open = text.find('(');
    const auto close = text.find("): ", open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return false;
    const std::string_view number = text.substr(open + 1, close - open - 1);
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), line);
    if (ec != std::errc() || ptr != number.data() + number.size())
        return false;
    file = text.substr(0, open);
    name = text.substr(close + 3);
    return true;
}

void decodeProfilerTrace(ByteReader &reader, Snapshot &out)
{
    TraceSax sax(out);
    parseJson(reader, sax);
    sax.finish(reader.offset());
}

} // namespace memlens
