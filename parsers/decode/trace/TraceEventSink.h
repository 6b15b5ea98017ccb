#pragma once
// One profiler trace event as either JSON reader sees it, and what becomes of the events: each
// [memory] event an alloc or a free of its device (CPU memory is a device of its own),
// [OutOfMemory] an oom entry, and each allocation gets as its "stack" the operators and Python
// functions open on its thread at that moment. The readers (simdjson for files, nlohmann's SAX
// parser as the reference the tests and the fuzzer hold it to) only fill TraceEvent.
#include "decode/trace/ProfilerPhases.h"
#include "model/Snapshot.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace memlens {

// The fields memlens reads; the views stay valid until the event is handed over.
struct TraceEvent {
    char ph = 0;
    std::string_view name, cat;
    std::string_view inputType; // the first non-empty entry of args' "Input type" (record_shapes)
    int64_t tid = 0;
    double ts = NAN, dur = 0;
    int64_t deviceType = -1, deviceId = -1, bytes = 0;
    uint64_t addr = 0, totalAllocated = 0, totalReserved = 0;
    bool haveBytes = false;
    bool haveAddr = false;
    bool haveTotals = false;
};

// Whether add() keeps anything of an event (operators, labels, Python functions, memory events):
// the parser reads no more of one it drops than these.
bool eventMatters(char ph, std::string_view cat, std::string_view name);
// Whether add() reads anything of an event's args, given what the event says before them: the
// memory events' fields, and the first input type of the operators whose dtype it counts. The
// parser skips the rest unread (most of a trace's bytes: kernels' and operators' args).
bool argsMatter(char ph, std::string_view cat, std::string_view name);

// A thread id given as a string, as a number (both readers hash it the same way).
int64_t traceThreadId(std::string_view text);

class TraceEventSink {
public:
    explicit TraceEventSink(Snapshot &out) : out_(out) { memory_.reserveOwnMapping(); }
    void add(const TraceEvent &e);
    // `sawEvents`: the file had a traceEvents list; `offset` for the error when it had none.
    void finish(bool sawEvents, uint64_t offset);

private:
    static constexpr size_t kSortElsewhereFrom = 100'000; // memory events
    // 48 bytes (a 1 GB trace holds ~0.4 M): each fresh page costs its first touch.
    struct MemoryEvent {
        double ts;
        int64_t bytes; // < 0: free
        uint64_t addr;
        uint64_t totalAllocated;
        uint64_t totalReserved;
        uint32_t thread; // memoryThreads_' index
        uint8_t device;
        bool oom;
        bool hasAddr;
        bool hasTotals;
    };
    static_assert(sizeof(MemoryEvent) == 48);

    // What a matrix product or convolution took (OperatorDtypes); None for every other operator.
    enum class ProductDtype : uint8_t { None, Fp32, Bf16, Fp16 };
    struct OpInterval {
        double start;
        double end;
        FrameId frame;
        ProductDtype dtype;
    };

    struct StringHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    FrameId frameFor(const TraceEvent &e);

    // finish()'s parts: the operators open on a memory event's thread (a sweep per thread),
    // the entries of each device (true when CPU memory is among them), the phases.
    struct OpenOperators {
        const PodArray<OpInterval> *ops = nullptr; // the thread's, sorted; null: none
        size_t next = 0;                           // the next operator to open
        std::vector<const OpInterval *> open;      // nested, outermost first
    };
    uint32_t memoryThread(int64_t tid);
    static void operatorsOpenAt(const MemoryEvent &m, OpenOperators &thread, std::vector<FrameId> &frames);
    // Each device's event columns reserved for its `rows` (the totals only where it states
    // them); the bytes they will fill, to be faulted in.
    struct ColumnRoom {
        char *base;
        size_t bytes;
    };
    std::vector<ColumnRoom> reserveColumns(const std::vector<size_t> &rows, const std::vector<char> &hasTotals);
    bool appendMemoryEvents(const std::vector<char> &noAddresses);
    void addPhaseMarks(int maxDevice);
    void countOperatorDtypes();

    Snapshot &out_;
    // Grown in place (PodArray): a 1 GB trace holds millions of each, and a vector's copies
    // at each doubling touched fresh memory twice the size.
    PodArray<MemoryEvent> memory_;
    std::unordered_map<int64_t, PodArray<OpInterval>> ops_; // by thread
    std::vector<int64_t> memoryThreads_;                      // the threads of memory events, as first seen
    std::unordered_map<int64_t, uint32_t> memoryThreadOfTid_;
    uint32_t lastMemoryThread_ = 0;
    std::unordered_map<std::string, FrameId, StringHash, std::equal_to<>> frameOfName_;
    std::vector<std::pair<StringId, TimedRange>> annotations_; // user annotations: (name, range)
    OperatorRanges structure_;
};

} // namespace memlens
