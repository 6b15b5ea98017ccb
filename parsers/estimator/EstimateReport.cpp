#include "estimator/EstimateReport.h"

#include "model/ByteFormat.h"
#include "report/JsonText.h"

#include <nlohmann/json.hpp>
#include <iomanip>
#include <sstream>

namespace memlens {

namespace {

nlohmann::json phasesJson(const EstimateResult &r)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto &[phase, bytes] : r.phases)
        j[std::string(estimatePhaseName(phase))] = bytes;
    return j;
}

} // namespace

std::string estimateJson(const EstimateInput &in, const EstimateResult &r, const std::optional<FitAnswer> &fit)
{
    nlohmann::json j = {
        {"model", in.model.name},
        {"mode", in.inference ? "inference" : "train"},
        {"precision", precisionName(in.precision)},
        {"optimizer", optimizerName(in.optimizer)},
        {"batch", in.batch},
        {"seq", in.seq},
        {"params", r.params},
        {"trainable_params", r.trainableParams},
        {"parameters_bytes", r.parametersBytes},
        {"gradients_bytes", r.gradientsBytes},
        {"optimizer_bytes", r.optimizerBytes},
        {"master_weights_bytes", r.masterWeightsBytes},
        {"activations_bytes", r.activationsBytes},
        {"logits_bytes", r.logitsBytes},
        {"transient_bytes", r.transientBytes},
        {"kv_cache_bytes", r.kvCacheBytes},
        {"gathered_bytes", r.gatheredBytes},
        {"workspace_bytes", r.workspaceBytes},
        {"peak_allocated_bytes", r.peakAllocatedBytes},
        {"peak_phase", estimatePhaseName(r.peakPhase)},
        {"phases", phasesJson(r)},
        {"reserved_bytes", r.reservedBytes},
        {"context_bytes", r.contextBytes},
        {"savings", r.savings},
    };
    if (in.gpuBytes) {
        j["fits"] = r.fits;
        j["gpu_bytes"] = in.gpuBytes;
    }
    if (fit)
        j["fit"] = {{"what", fit->what}, {"value", fit->value}};
    return jsonText(j, 2) + "\n";
}

std::string estimateText(const EstimateInput &in, const EstimateResult &r, const std::optional<FitAnswer> &fit)
{
    std::ostringstream out;
    out << in.model.name << ", " << (in.inference ? "inference" : "training") << ", " << precisionName(in.precision);
    if (!in.inference)
        out << ", " << optimizerName(in.optimizer);
    out << ", batch " << in.batch << (in.model.isImage() ? ", image " : ", sequence ") << in.seq << "\n";
    out << "  parameters      " << groupDigits(r.params) << " (" << groupDigits(r.trainableParams) << " trainable)\n";
    auto line = [&](const char *label, uint64_t bytes) {
        if (bytes)
            out << "  " << std::left << std::setw(16) << label << formatBytes(bytes) << "\n";
    };
    line("weights", r.parametersBytes);
    line("gradients", r.gradientsBytes);
    line("optimizer state", r.optimizerBytes);
    line("autocast copies", r.masterWeightsBytes);
    line("activations", r.activationsBytes);
    line("logits and loss", r.logitsBytes);
    line("step temps", r.transientBytes);
    line("KV cache", r.kvCacheBytes);
    line("cuBLAS workspace ", r.workspaceBytes);
    out << "  peak allocated  " << formatBytes(r.peakAllocatedBytes) << " (" << estimatePhaseName(r.peakPhase) << ")\n";
    out << "  reserved        " << formatBytes(r.reservedBytes) << " + CUDA context " << formatBytes(r.contextBytes) << "\n";
    if (in.gpuBytes)
        out << "  " << (r.fits ? "fits" : "does NOT fit") << " in " << formatBytes(in.gpuBytes) << "\n";
    for (const auto &[technique, bytes] : r.savings) {
        if (bytes > 0)
            out << "  " << technique << " would save " << formatBytes(static_cast<uint64_t>(bytes)) << "\n";
    }
    if (fit)
        out << "  largest " << fit->what << " that fits: " << fit->value << "\n";
    return out.str();
}

} // namespace memlens
