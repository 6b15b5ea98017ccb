#include "advice/FixRanking.h"

#include <cstdio>

#include "advice/AllocatorFixes.h"
#include "advice/RunSamples.h"
#include "advice/ShardedFixes.h"
#include "index/AllocatorState.h"
#include "index/StackMatch.h"
#include "figures/FileHealth.h"
#include "figures/SnapshotSummary.h"
#include "estimator/Techniques.h"
#include "replay/Replay.h"
#include "replay/ReplayVerdict.h"
#include "model/ByteFormat.h"

#include <algorithm>
#include <cctype>

namespace memlens {

namespace {

// How a fix changes the run: a factor per category (temporaries of the optimizer step get
// their own), gradients that stay alive across micro-batches, the logits and scores it removes.
struct Change {
    std::array<double, kCategoryCount> ratio{1, 1, 1, 1, 1, 1, 1};
    double stepTemporaries = 1;
    bool gradientsPersist = false;
    double logitsKept = 1;
    double scoresKept = 1;
};

// The factor for category k at a sample: the optimizer step's temporaries have their own.
double ratioAt(const Change &c, size_t k, const RunSample &s)
{
    return k == size_t(Category::Temporary) && s.part == StepPart::Optimizer ? c.stepTemporaries : c.ratio[k];
}

double after(const RunSample &s, const Change &c, int64_t maxGradients)
{
    double total = 0;
    for (size_t k = 0; k < kCategoryCount; ++k) {
        double bytes = double(s.categories[k]);
        if (k == size_t(Category::Gradient) && c.gradientsPersist)
            bytes = double(std::max(s.categories[k], maxGradients));
        total += bytes * ratioAt(c, k, s);
    }
    return total - double(s.logits) * (1 - c.logitsKept) - double(s.scores) * (1 - c.scoresKept);
}

double ratioOf(double alt, double base)
{
    return base > 0 ? alt / base : 1;
}

// The estimator's per-category change from the setup to the setup with a technique.
Change changeOf(const EstimateInput &base, const EstimateInput &alt)
{
    const EstimateResult b = estimateWithoutSavings(base), a = estimateWithoutSavings(alt);
    Change c;
    c.ratio[size_t(Category::Parameter)] = ratioOf(double(a.parametersBytes), double(b.parametersBytes));
    c.ratio[size_t(Category::Gradient)] = ratioOf(double(a.gradientsBytes), double(b.gradientsBytes));
    c.ratio[size_t(Category::OptimizerState)] = ratioOf(double(a.optimizerBytes), double(b.optimizerBytes));
    const double act = ratioOf(double(a.activationsBytes + a.logitsBytes + a.masterWeightsBytes),
                               double(b.activationsBytes + b.logitsBytes + b.masterWeightsBytes));
    c.ratio[size_t(Category::Activation)] = act;
    c.ratio[size_t(Category::Temporary)] = act;
    c.stepTemporaries = ratioOf(double(a.transientBytes), double(b.transientBytes));
    c.gradientsPersist = alt.gradAccumulation > base.gradAccumulation;
    return c;
}

bool isAttentionFunction(std::string_view name)
{
    std::string lowered(name);
    for (char &ch : lowered)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return lowered.find("attn") != std::string::npos || lowered.find("attention") != std::string::npos;
}

std::string deltas(const RunSample &peak, const Change &c)
{
    std::string text;
    for (size_t k = 0; k < kCategoryCount; ++k) {
        const double r = ratioAt(c, k, peak);
        if (r == 1 || peak.categories[k] < (1 << 20))
            continue;
        text += (text.empty() ? "" : ", ") + std::string(categoryName(Category(k))) + " " + formatBytes(uint64_t(peak.categories[k])) + " → " +
                formatBytes(uint64_t(double(peak.categories[k]) * r));
    }
    return text;
}

std::vector<std::string> affected(const Change &c)
{
    std::vector<std::string> out;
    for (size_t k = 0; k < kCategoryCount; ++k) {
        if (c.ratio[k] != 1 || (k == size_t(Category::Temporary) && c.stepTemporaries != 1) ||
            (k == size_t(Category::Gradient) && c.gradientsPersist))
            out.emplace_back(categoryName(Category(k)));
    }
    if (c.logitsKept != 1)
        out.emplace_back("logits");
    if (c.scoresKept != 1)
        out.emplace_back("attention_scores");
    return out;
}

// Logits and score matrices, by their shapes: tokens × vocabulary, and batch × heads × seq².
class ShapeBuckets {
public:
    ShapeBuckets(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, const InferredSetup &setup)
        : index_(index), categories_(categories), setup_(setup), tokens_(setup.tokens.value.value_or(0)),
          attentionStack_(stacksWithFrame(snapshot, [&](const Frame &f) { return isAttentionFunction(snapshot.strings.at(f.name)); }))
    {
    }

    Bucket operator()(AllocationId id) const
    {
        const ModelShape &shape = setup_.input.model;
        if (!setup_.hasShape || !tokens_ || shape.isImage())
            return Bucket::None;
        const uint64_t size = index_.requestedBytes(id);
        if (!setup_.mayBeLogits(categories_.of(id), index_.detail(id).stack))
            return Bucket::None;
        if (shape.vocab && (size == tokens_ * uint64_t(shape.vocab) * 4 || size == tokens_ * uint64_t(shape.vocab) * 2))
            return Bucket::Logits;
        for (uint64_t e : {2u, 4u}) {
            const uint64_t unit = tokens_ * uint64_t(shape.heads) * e;
            if (unit && size % unit == 0) {
                const uint64_t seq = size / unit;
                // Wider than two heads' values, so not the attention output (tokens × heads × head size).
                if (seq > 2 * uint64_t(shape.dHead()) && tokens_ % seq == 0 && attentionStack_[index_.detail(id).stack])
                    return Bucket::Scores;
            }
        }
        return Bucket::None;
    }

private:
    const DeviceIndex &index_;
    const AllocationCategories &categories_;
    const InferredSetup &setup_;
    uint64_t tokens_;
    IdVector<StackId, bool> attentionStack_;
};

// Capacity: given, or what the OOM entry says the device had; at an OOM with the device's
// total, less what it held outside the allocator.
void findCapacity(Advice &a, const DeviceIndex &index, const AdviceOptions &options)
{
    a.capacity = options.capacity;
    a.capacityHow = options.capacitySource;
    if (!a.capacity && a.oom) {
        const CapacityGuess guess = capacityFromOom(index);
        a.capacity = guess.bytes;
        a.capacityHow = guess.how;
    }
    if (a.oom && options.deviceTotal) {
        a.outsideAllocatorBytes = outsideAllocatorBytes(options.deviceTotal, index.events().addr[a.point.lastEntry().index()], a.reservedBytes);
        if (a.outsideAllocatorBytes && a.capacity && *a.outsideAllocatorBytes < *a.capacity) {
            a.capacity = *a.capacity - *a.outsideAllocatorBytes;
            a.capacityHow += ", less " + formatBytes(*a.outsideAllocatorBytes) +
                             " the OOM shows held outside PyTorch's allocator (CUDA context, NCCL, other processes)";
        }
    }
}

// Prices a change over the whole run: the peak after it, whether that fits, and adds it as a fix
// when it saves more than the rules' noise.
class FixPricer {
public:
    FixPricer(Advice &a, const std::vector<RunSample> &samples, int64_t request)
        : a_(a), samples_(samples), request_(request), before_(double(a.peakBytes))
    {
        for (const RunSample &s : samples) {
            maxGradients_ = std::max(maxGradients_, s.categories[size_t(Category::Gradient)]);
            before_ = std::max(before_, double(s.total()) + (s.point == a.point ? double(request) : 0));
        }
    }

    double peakAfter(const Change &c) const
    {
        double peak = 0;
        for (const RunSample &s : samples_)
            peak = std::max(peak, after(s, c, maxGradients_) + (s.point == a_.point ? double(request_) : 0));
        return peak;
    }

    void add(const std::string &technique, Effort effort, const Change &c, std::string why, std::optional<EstimateInput> applied, bool canFit = true)
    {
        const double saves = before_ - peakAfter(c);
        if (saves < before_ * 0.005) // half a percent: noise of the rules, not a fix
            return;
        // The allocated bytes saved are reserved bytes saved: the allocator's overhead on what
        // stays is taken as it was.
        const uint64_t peak = a_.neededBytes - std::min(a_.neededBytes, static_cast<uint64_t>(saves));
        std::optional<bool> fits;
        if (a_.capacity && canFit)
            fits = peak <= *a_.capacity;
        a_.fixes.push_back({technique, effort, static_cast<int64_t>(saves), peak, fits, std::move(why), affected(c), std::move(applied), std::nullopt,
                            false}); // margins: addMargins
    }

private:
    Advice &a_;
    const std::vector<RunSample> &samples_;
    int64_t request_;
    double before_;
    int64_t maxGradients_ = 0;
};

// The estimator's techniques, as ratios for this setup. Without a model shape the estimator has
// no figures to take ratios of, so there are none. What the setup already uses is not offered
// (Technique::applies); a fix priced on a guessed value says so.
void addTechniqueFixes(Advice &a, FixPricer &pricer, const RunSample &here)
{
    const EstimateInput &setup = a.setup.input;
    const std::optional<int> gpus = a.setup.gpus.value;
    const bool dtypeGuessed = a.setup.paramDtype.confidence == Confidence::Low;
    const bool optimizerGuessed = a.setup.optimizer.confidence == Confidence::Low;
    if (setup.inference || !a.setup.hasShape)
        return;
    for (const Technique &t : techniques()) {
        if (!t.applies(setup) || (t.shards && gpus && *gpus < 2))
            continue;
        EstimateInput alt = setup;
        t.apply(alt);
        std::string name(t.name);
        std::string guessed;
        if (t.shards) {
            alt.gpus = gpus.value_or(8);
            if (!gpus && a.capacity) {
                // The fewest GPUs that bring the peak under the capacity.
                for (int n = 2; n <= 1024; n *= 2) {
                    alt.gpus = n;
                    if (pricer.peakAfter(changeOf(setup, alt)) <= double(*a.capacity))
                        break;
                }
            }
            name += " over " + std::to_string(alt.gpus) + " GPUs";
            if (!gpus)
                guessed = a.capacity ? " (the file does not say how many GPUs the run had: " + std::to_string(alt.gpus) +
                                           " is the fewest that bring the peak under the capacity; give --gpus N)"
                                     : " (the file does not say how many GPUs the run had: 8 is an example; give --gpus N)";
        }
        const Change c = changeOf(setup, alt);
        std::string why = std::string(t.reason) + guessed;
        if (dtypeGuessed)
            why += " (priced on a guessed weight dtype: " + a.setup.paramDtype.how + ")";
        if (optimizerGuessed && t.effort == Effort::Numerics)
            why += " (priced on a guessed optimizer: " + a.setup.optimizer.how + ")";
        if (const std::string d = deltas(here, c); !d.empty())
            why += "; at the " + std::string(a.oom ? "OOM" : "peak") + ": " + d;
        pricer.add(name, t.effort, c, why, alt, !t.shards || gpus.has_value());
    }
}

// Measured directly: logits where they dominate, live score matrices.
void addMeasuredFixes(const Advice &a, FixPricer &pricer)
{
    if (a.logitsBytes * 20 >= a.peakBytes && a.logitsBytes > 0 && !a.sharded) { // a sharded run prices it itself
        Change c;
        c.logitsKept = 1.0 / 8;
        pricer.add("chunked-cross-entropy", Effort::Loop, c,
                   "a fused or chunked linear cross-entropy (e.g. Liger's) computes the loss in chunks instead of materialising " +
                       formatBytes(a.logitsBytes) + " of logits and their fp32 copies",
                   std::nullopt);
    }
    if (a.attentionScoreBytes > 0) {
        Change c;
        c.scoresKept = 0;
        pricer.add("flash-attention", Effort::Loop, c,
                   formatBytes(a.attentionScoreBytes) +
                       " of batch × heads × seq² attention scores is live; FlashAttention (SDPA with bf16/fp16 inputs) keeps none",
                   std::nullopt);
    }
}

// How much room a fitting fix leaves, and whether that is within the error of what priced it. At
// an OOM a replay knows the run only up to the failure: a setting that fits by a hair there may
// not over what the program did after it.
void addMargins(Advice &a)
{
    constexpr double kEstimateError = 0.05;
    for (Fix &f : a.fixes) {
        if (!a.capacity || !f.fits.value_or(false) || f.peakAfterBytes > *a.capacity)
            continue;
        f.marginBytes = *a.capacity - f.peakAfterBytes;
        const double error = f.effort == Effort::Config ? kReplayError : kEstimateError;
        f.thinMargin = double(*f.marginBytes) < error * double(*a.capacity);
        if (f.thinMargin && a.oom && f.effort == Effort::Config)
            f.why += std::string("; ") + kEndsAtOomCaveat;
    }
}

// An FSDP run read whole from the rank's gathers, with the summary's units and phases when given.
std::optional<ShardedModel> shardedRun(const Snapshot &snapshot, const DeviceIndex &index, const DeviceSummary *summary, TracePoint at)
{
    if (summary)
        return summary->units ? shardedModel(snapshot, index, *summary->units, summary->phases, at) : std::nullopt;
    const std::vector<PhaseRange> phases = phaseRanges(snapshot, index.device());
    return shardedModel(snapshot, index, ModuleUnits(index, phases), phases, at);
}

} // namespace

std::string marginText(const Fix &fix, uint64_t capacity)
{
    if (!fix.marginBytes || capacity == 0)
        return "";
    return spareText(*fix.marginBytes, capacity, fix.thinMargin);
}

Advice advise(const Snapshot &snapshot, const DeviceIndex &index, const AllocationCategories &categories, const AdviceOptions &options)
{
    Advice a;
    const bool hasOom = !index.oomEvents().empty();
    a.point = pointOf(index, options.at.value_or(hasOom ? Moment::oom() : Moment::peak()));
    a.oom = !a.point.isStart() && index.events().action[a.point.lastEntry().index()] == Action::Oom;
    a.setup = inferSetup(snapshot, index, categories, a.point, options.gpus);
    if ((a.sharded = shardedRun(snapshot, index, options.summary, a.point))) {
        applyShardedModel(a.setup, *a.sharded);
        if (options.gpus.value)
            a.setup.gpus = options.gpus;
    }

    // The summary's when the caller made one (the window, the questions), else made here.
    std::optional<StepParts> own;
    const StepParts &parts = options.summary && options.summary->parts ? *options.summary->parts
                                                                       : own.emplace(snapshot, index, phaseRanges(snapshot, index.device()));
    const std::vector<RunSample> samples = sampleRun(index, categories, parts, ShapeBuckets(snapshot, index, categories, a.setup), a.point);
    const auto atSample = std::find_if(samples.begin(), samples.end(), [&](const RunSample &s) { return s.point == a.point; });
    const RunSample here = atSample != samples.end() ? *atSample : samples.back();
    const int64_t request = a.oom ? static_cast<int64_t>(index.events().size[a.point.lastEntry().index()]) : 0;
    for (size_t k = 0; k < kCategoryCount; ++k)
        a.categories[k] = static_cast<uint64_t>(std::max<int64_t>(0, here.categories[k]));
    a.logitsBytes = static_cast<uint64_t>(std::max<int64_t>(0, here.logits));
    a.attentionScoreBytes = static_cast<uint64_t>(std::max<int64_t>(0, here.scores));
    a.peakBytes = static_cast<uint64_t>(std::max<int64_t>(0, here.total() + request));
    a.reservedBytes = index.reservedAt(a.point);
    a.neededBytes = recordedNeed(snapshot, index, a.point, a.oom);
    findCapacity(a, index, options);

    FixPricer pricer(a, samples, request);
    // The estimator's per-category factors read a single-GPU run: an FSDP rank's shards, gathered
    // units and 16-bit activations are priced by its own step instead.
    if (a.sharded)
        addShardedFixes(a, *a.sharded, uint64_t(request));
    else
        addTechniqueFixes(a, pricer, here);
    addMeasuredFixes(a, pricer);
    // A replay per setting costs about a second per 10 M entries: where fitting is the question
    // (an OOM, or a capacity to fit), and where much of what is reserved at the moment is free
    // (fragmentation without an OOM) on traces that replay in well under a second; the Segments
    // page replays any setting on demand, and the advice says what it left untried.
    const bool fragmented = a.reservedBytes > a.peakBytes && a.reservedBytes - a.peakBytes >= std::max<uint64_t>(a.reservedBytes / 10, 256ull << 20);
    if (a.oom || options.capacity || (fragmented && index.eventCount() <= options.replayUnaskedEntries)) {
        for (Fix &f : allocatorFixes(snapshot, index, a.neededBytes, a.oom, a.capacity))
            a.fixes.push_back(std::move(f));
    } else if (fragmented) {
        a.notTried = "allocator settings were not replayed (" + groupDigits(index.eventCount()) + " entries), though " +
                     formatBytes(a.reservedBytes - a.peakBytes) + " reserved at the peak stands free: a replay takes seconds; "
                     "`memlens replay FILE --alloc-conf expandable_segments:True` prices one (or max_split_size_mb:N), the Segments "
                     "page's what-if any, and advise with --gpu or --capacity tries them all";
    }
    addMargins(a);
    if (a.fixes.empty())
        a.noFixesBecause = snapshot.facts.hasFrames ? "nothing the rules know of saves memory here"
                                                    : std::string(kNotRecordedNoStacks) +
                                                          ", so the setup the rules price cannot be read; allocator settings are replayed at an OOM "
                                                          "or with --gpu or --capacity";
    std::stable_sort(a.fixes.begin(), a.fixes.end(), [&](const Fix &x, const Fix &y) {
        const bool xf = x.fits.value_or(false) && !options.bySaves, yf = y.fits.value_or(false) && !options.bySaves;
        if (xf != yf)
            return xf;
        if (xf && x.effort != y.effort)
            return x.effort < y.effort;
        return x.savesBytes > y.savesBytes;
    });
    return a;
}

} // namespace memlens
