#pragma once
// The memory estimator as a form: every input of parsers/MemoryEstimator, the breakdown as a
// stacked bar against the chosen GPU, what each technique would save (click to apply it), and
// the largest batch / longest sequence that fits. Given a snapshot's measured peak, shows it
// beside the prediction.
#include "advice/FixRanking.h"
#include "figures/AllocationCategories.h"
#include "estimator/MemoryEstimator.h"
#include "pipeline/Document.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QVBoxLayout;
class QFormLayout;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace memlens {

class BreakdownBar;

class EstimatorPanel : public QWidget {
    Q_OBJECT

public:
    explicit EstimatorPanel(QWidget *parent = nullptr);

    void setInput(const EstimateInput &input);
    EstimateInput input() const;
    const EstimateResult &result() const { return result_; }
    // A snapshot's measured peak (allocated bytes), shown next to the estimate.
    void setMeasuredPeak(std::optional<uint64_t> bytes, const QString &source);
    // …and what it held by category at that peak, shown beside the estimate's parts.
    void setMeasuredCategories(const std::array<uint64_t, kCategoryCount> &bytes);
    // Both, from one device (the one the user has selected). A run that ran out of memory is
    // compared by what it needed at least (allocated at the OOM plus the failed request), not by
    // the peak the OOM cut short; the capacity its OOM shows becomes a GPU choice of its own.
    void setMeasurement(const DeviceData &device, const QString &source);
    QComboBox *gpuBox() const { return gpu_; }
    QString fitText() const;
    void solveFit(bool batch);
    // The setup inferred from the snapshot: applied at once, named in a line above the form,
    // and re-applied by "Use the snapshot's setup".
    void setInferred(const InferredSetup &setup);
    void prefillFromSnapshot();
    // One of the snapshot's fixes: applied to the inferred setup when the estimator models it,
    // with its measured saving beside the estimate.
    void showFix(const Fix &fix);
    QString inferredText() const;
    QListWidget *savingsList() const { return savings_; }
    QString figuresText() const;

private:
    QFormLayout *buildSetupForm();
    QVBoxLayout *buildResults();
    void recompute();
    void applyTechnique(const QString &technique);
    void showShape(const ModelShape &shape);

    bool updating_ = false;
    EstimateResult result_;
    std::optional<uint64_t> measured_;
    std::optional<std::array<uint64_t, kCategoryCount>> measuredCategories_;
    QString measuredSource_;
    bool measuredCutShort_ = false; // measured_ is what an OOM run needed at least
    std::optional<InferredSetup> inferred_;
    // The recording's setup as the form holds it, and what the advice priced on the recording:
    // while the form shows that setup, its savings are the advice's (one fix, one saving).
    std::optional<EstimateInput> recordingInput_;
    std::map<std::string, int64_t> recordedSavings_;
    bool atRecording() const;
    std::optional<ModelShape> inferredModel_; // a shape no preset has, first in the model list
    // The preset, or the inferred shape, of that name.
    std::optional<ModelShape> modelNamed(const QString &name) const;
    QLabel *inferredLabel_, *fixLabel_;
    QComboBox *model_, *mode_, *precision_, *optimizer_, *checkpointing_, *attention_, *loraTargets_, *gpu_;
    QSpinBox *batch_, *seq_, *newTokens_, *gradAccum_, *loraRank_, *zero_, *gpus_;
    QSpinBox *layers_, *hidden_, *heads_, *kvHeads_, *intermediate_, *vocab_; // the shape, editable
    QCheckBox *fused_, *qlora_, *offload_, *fusedNorm_;
    BreakdownBar *bar_;
    QLabel *figures_, *fit_;
    QPushButton *prefill_;
    QListWidget *savings_;
};

} // namespace memlens
