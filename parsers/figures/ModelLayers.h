#pragma once
// The layers a model's forward runs one after another (a transformer's decoder layers), found in
// the stacks, where no framework marks them: a line of the model's own code that calls a module
// (through torch.nn.Module's `_call_impl`) again and again in one forward pass, each call making
// the same sequence of stacks. The outermost such line is the layer loop (GPT-2's `for block in
// self.h`, Llama's `for decoder_layer in self.layers`); its calls in a pass are the layers,
// numbered in the order the pass runs them. No script's name decides it: only torch's module
// call and the repetition. A file without Python stacks, or whose forward calls no module twice
// that way, has none. Where a framework's marks name the layers (FSDP's units, Megatron's module
// paths: figures/MarkedLayers), they are taken instead.
#include "figures/StepParts.h"
#include "index/DeviceIndex.h"
#include "model/EnumNames.h"
#include "model/Snapshot.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memlens {

class ModuleUnits;

// Where a run's layers were found: `layers_from` in the JSON.
enum class LayerSource : uint8_t { Stacks, FsdpMarks, ModuleMarks };
constexpr EnumNames<LayerSource, 3> kLayerSourceNames{
    {{{LayerSource::Stacks, "stacks"}, {LayerSource::FsdpMarks, "fsdp_marks"}, {LayerSource::ModuleMarks, "module_marks"}}}};

// One layer's forward in one pass: the entries [first, end).
struct LayerWindow {
    uint32_t pass = 0;  // the forward pass, in entry order
    uint32_t layer = 0; // in the order the pass ran them
    EventId first;
    EventId end;
};

class ModelLayers {
public:
    // `units` (may be null): the run's units, whose marks are read first.
    ModelLayers(const Snapshot &snapshot, const DeviceIndex &index, const StepParts &parts, const ModuleUnits *units);

    LayerSource source() const { return source_; }
    // With marks: the units' name up to the layer index ("layers", "decoder.layers").
    const std::string &markedStack() const { return markedStack_; }
    // Layers per forward pass; 0 when none were found.
    uint32_t count() const { return count_; }
    // From the stacks: the frame that calls each layer, and the line of the model's forward it runs in (the
    // same frame, or the one outside a layer class's own `__call__`).
    FrameId loop() const { return loop_; }
    FrameId loopLine() const { return line_; }
    // Every layer's window in every forward pass that ran `count()` of them, in entry order.
    const std::vector<LayerWindow> &windows() const { return windows_; }

private:
    void fromStacks(const Snapshot &snapshot, const DeviceIndex &index, const StepParts &parts);

    LayerSource source_ = LayerSource::Stacks;
    std::string markedStack_;
    uint32_t count_ = 0;
    FrameId loop_;
    FrameId line_;
    std::vector<LayerWindow> windows_;
};

} // namespace memlens
