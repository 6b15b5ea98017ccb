#include "estimator/EstimatorPanel.h"

#include "estimator/Techniques.h"
#include "export/ViewExport.h"
#include "style/ByteText.h"
#include "summary/BreakdownBar.h"

#include <algorithm>
#include <tuple>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace memlens {

namespace {

// How the breakdown bar shows each part the estimator counts.
std::pair<QString, QColor> partLook(EstimatePart part)
{
    switch (part) {
    case EstimatePart::Weights:
        return {EstimatorPanel::tr("weights"), QColor(46, 125, 50)};
    case EstimatePart::Optimizer:
        return {EstimatorPanel::tr("optimizer"), QColor(218, 165, 32)};
    case EstimatePart::AutocastCopies:
        return {EstimatorPanel::tr("autocast copies"), QColor(120, 170, 90)};
    case EstimatePart::Gradients:
        return {EstimatorPanel::tr("gradients"), QColor(30, 90, 200)};
    case EstimatePart::StepTemporaries:
        return {EstimatorPanel::tr("step temporaries"), QColor(130, 130, 140)};
    case EstimatePart::KvCache:
        return {EstimatorPanel::tr("KV cache"), QColor(150, 90, 200)};
    case EstimatePart::Transient:
        return {EstimatorPanel::tr("transient"), QColor(200, 60, 60)};
    case EstimatePart::Activations:
        return {EstimatorPanel::tr("activations"), QColor(200, 60, 60)};
    case EstimatePart::LogitsAndLoss:
        break;
    }
    return {EstimatorPanel::tr("logits and loss"), QColor(240, 130, 60)};
}

} // namespace

EstimatorPanel::EstimatorPanel(QWidget *parent) : QWidget(parent)
{
    setProperty(kExportKeepsControls, true); // the setup is half of what an export of it says
    auto *outer = new QHBoxLayout(this);
    outer->addLayout(buildSetupForm());

    outer->addLayout(buildResults(), 1);

    for (QComboBox *c : {model_, mode_, precision_, optimizer_, checkpointing_, attention_, loraTargets_, gpu_})
        connect(c, &QComboBox::currentIndexChanged, this, &EstimatorPanel::recompute);
    for (QSpinBox *s : {batch_, seq_, newTokens_, gradAccum_, loraRank_, zero_, gpus_, layers_, hidden_, heads_, kvHeads_, intermediate_, vocab_})
        connect(s, &QSpinBox::valueChanged, this, &EstimatorPanel::recompute);
    connect(model_, &QComboBox::currentIndexChanged, this, [this] {
        if (auto preset = modelNamed(model_->currentText()))
            showShape(*preset);
    });
    showShape(*findModel(model_->currentText().toStdString()));
    for (QCheckBox *c : {fused_, qlora_, offload_, fusedNorm_})
        connect(c, &QCheckBox::toggled, this, &EstimatorPanel::recompute);
    connect(savings_, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) { applyTechnique(item->data(Qt::UserRole).toString()); });
    recompute();
}

void EstimatorPanel::solveFit(bool batch)
{
    EstimateInput in = input();
    if (!in.gpuBytes) {
        fit_->setText(gpu_->findData(QStringLiteral("run"), Qt::UserRole + 1) >= 0 ? tr("choose a GPU first (or this run's device)")
                                                                                : tr("choose a GPU first"));
        return;
    }
    const int v = batch ? largestBatch(in) : longestSequence(in);
    fit_->setText(v ? tr("largest %1 that fits: <b>%2</b>").arg(batch ? tr("batch") : tr("sequence")).arg(v) : tr("not even 1 fits"));
}

void EstimatorPanel::showShape(const ModelShape &shape)
{
    const bool was = updating_;
    updating_ = true;
    const bool image = shape.isImage();
    for (QSpinBox *s : {layers_, hidden_, heads_, kvHeads_, intermediate_, vocab_})
        s->setEnabled(!image);
    if (!image) {
        layers_->setValue(shape.layers);
        hidden_->setValue(shape.hidden);
        heads_->setValue(shape.heads);
        kvHeads_->setValue(shape.kvHeads);
        intermediate_->setValue(shape.intermediate);
        vocab_->setValue(std::max(1, shape.vocab));
    }
    updating_ = was;
    recompute();
}

std::optional<ModelShape> EstimatorPanel::modelNamed(const QString &name) const
{
    if (inferredModel_ && inferredModel_->name == name.toStdString())
        return inferredModel_;
    return findModel(name.toStdString());
}

EstimateInput EstimatorPanel::input() const
{
    EstimateInput in;
    in.model = *modelNamed(model_->currentText());
    if (!in.model.isImage()) {
        // Edited shape fields make a custom model of the preset's family.
        ModelShape &m = in.model;
        const bool edited = m.layers != layers_->value() || m.hidden != hidden_->value() || m.heads != heads_->value() ||
                            m.kvHeads != kvHeads_->value() || m.intermediate != intermediate_->value() ||
                            (m.vocab && m.vocab != vocab_->value());
        if (edited) {
            m.name = "custom (" + m.name + " family)";
            m.layers = layers_->value();
            m.hidden = hidden_->value();
            m.heads = heads_->value();
            m.kvHeads = std::min(kvHeads_->value(), heads_->value());
            m.intermediate = intermediate_->value();
            m.vocab = m.vocab ? vocab_->value() : 0;
            m.headDim = 0;
        }
    }
    in.inference = mode_->currentIndex() == 1;
    parsePrecision(precision_->currentText().toStdString(), in.precision);
    parseOptimizer(optimizer_->currentText().toStdString(), in.optimizer);
    if (in.inference)
        in.optimizer = Optimizer::None;
    in.fusedOptimizer = fused_->isChecked();
    in.batch = batch_->value();
    in.seq = seq_->value();
    in.newTokens = newTokens_->value();
    in.gradAccumulation = gradAccum_->value();
    parseCheckpointing(checkpointing_->currentText().toStdString(), in);
    parseAttention(attention_->currentText().toStdString(), in.attention);
    in.fusedNorm = fusedNorm_->isChecked();
    in.loraRank = loraRank_->value();
    in.loraTargets = static_cast<LoraTargets>(loraTargets_->currentData().toInt());
    in.qlora = qlora_->isChecked();
    in.zeroStage = zero_->value();
    in.gpus = gpus_->value();
    in.offloadOptimizer = offload_->isChecked();
    in.gpuBytes = gpu_->currentData().toULongLong();
    return in;
}

void EstimatorPanel::setInput(const EstimateInput &in)
{
    updating_ = true;
    if (!findModel(in.model.name)) {
        // A shape no preset has (the snapshot's, as inferred) is the first choice, by its name.
        if (inferredModel_)
            model_->removeItem(0);
        inferredModel_ = in.model;
        model_->insertItem(0, QString::fromStdString(in.model.name));
    }
    model_->setCurrentText(QString::fromStdString(in.model.name));
    showShape(in.model);
    updating_ = true;
    mode_->setCurrentIndex(in.inference ? 1 : 0);
    precision_->setCurrentText(QString::fromStdString(precisionName(in.precision)));
    optimizer_->setCurrentText(QString::fromStdString(optimizerName(in.optimizer)));
    fused_->setChecked(in.fusedOptimizer);
    batch_->setValue(in.batch);
    seq_->setValue(in.seq);
    newTokens_->setValue(in.newTokens);
    gradAccum_->setValue(in.gradAccumulation);
    const QString checkpointing = QString::fromStdString(checkpointingName(in));
    if (checkpointing_->findText(checkpointing) < 0)
        checkpointing_->addItem(checkpointing);
    checkpointing_->setCurrentText(checkpointing);
    attention_->setCurrentText(QString::fromStdString(attentionName(in.attention)));
    fusedNorm_->setChecked(in.fusedNorm);
    loraRank_->setValue(in.loraRank);
    loraTargets_->setCurrentIndex(loraTargets_->findData(int(in.loraTargets)));
    qlora_->setChecked(in.qlora);
    zero_->setValue(in.zeroStage);
    gpus_->setValue(in.gpus);
    offload_->setChecked(in.offloadOptimizer);
    for (int i = 0; i < gpu_->count(); ++i) {
        if (gpu_->itemData(i).toULongLong() == in.gpuBytes)
            gpu_->setCurrentIndex(i);
    }
    updating_ = false;
    recompute();
}

void EstimatorPanel::setMeasuredPeak(std::optional<uint64_t> bytes, const QString &source)
{
    measured_ = bytes;
    measuredSource_ = source;
    recompute();
}

void EstimatorPanel::setMeasuredCategories(const std::array<uint64_t, kCategoryCount> &bytes)
{
    measuredCategories_ = bytes;
    recompute();
}

void EstimatorPanel::setMeasurement(const DeviceData &device, const QString &source)
{
    const Advice &a = device.advice;
    measuredCutShort_ = a.oom;
    // The snapshot's own device, as the OOM shows it, offered beside the presets.
    const int own = gpu_->findData(QStringLiteral("run"), Qt::UserRole + 1);
    if (own >= 0)
        gpu_->removeItem(own);
    if (a.capacity) {
        gpu_->insertItem(1, tr("this run's device (%1)").arg(bytesText(*a.capacity)), QVariant::fromValue<qulonglong>(*a.capacity));
        gpu_->setItemData(1, QStringLiteral("run"), Qt::UserRole + 1);
        gpu_->setItemData(1, QString::fromStdString(a.capacityHow), Qt::ToolTipRole);
    }
    recordedSavings_.clear();
    for (const Fix &f : a.fixes)
        recordedSavings_[f.technique] = f.savesBytes;
    setMeasuredCategories(device.summary.categoryBytesAtPeak);
    setMeasuredPeak(a.oom ? a.peakBytes : device.summary.peakActiveBytes, source);
}

QString EstimatorPanel::fitText() const
{
    return fit_->text();
}

void EstimatorPanel::setInferred(const InferredSetup &setup)
{
    inferred_ = setup;
    prefill_->setEnabled(setup.hasShape);
    QStringList fields, hows;
    // A low-confidence value is shown as a guess.
    auto add = [&](const QString &label, const auto &field, const QString &value) {
        if (field.value)
            fields << (field.confidence == Confidence::Low ? tr("%1 (guess)").arg(value) : value);
        hows << label + " (" + QString::fromUtf8(kConfidenceNames.name(field.confidence)) + tr(" confidence): ") + QString::fromStdString(field.how);
    };
    add(tr("model"), setup.preset, QString::fromStdString(setup.preset.value.value_or("")));
    add(tr("parameters"), setup.params, setup.params.value ? QString::fromStdString(groupDigits(*setup.params.value)) + tr(" parameters") : QString());
    add(tr("precision"), setup.paramDtype,
        QString::fromStdString(setup.paramDtype.value ? precisionName(*setup.paramDtype.value) : "") +
            (setup.autocast.value.value_or(false) ? tr(" weights, autocast") : tr(" weights")));
    add(tr("optimizer"), setup.optimizer, QString::fromStdString(setup.optimizer.value ? optimizerName(*setup.optimizer.value) : ""));
    add(tr("tokens"), setup.tokens,
        setup.tokens.value ? tr("%1 tokens per micro-batch (entered as batch %2 × sequence %3: a snapshot has no tensor shapes)").arg(QString::fromStdString(groupDigits(*setup.tokens.value))).arg(setup.input.batch).arg(setup.input.seq)
                           : QString());
    add(tr("batch"), setup.batch, setup.batch.value ? tr("batch %1").arg(*setup.batch.value) : QString());
    add(tr("checkpointing"), setup.checkpointing, setup.checkpointing.value.value_or(false) ? tr("checkpointing") : tr("no checkpointing"));
    QString text = tr("<b>Inferred from the snapshot:</b> %1").arg(fields.join(" · ").toHtmlEscaped());
    if (!setup.hasShape)
        text += tr(" — no model shape recognised; choose the model yourself");
    else if (setup.shapeFromTemplate)
        text += tr(" — no preset matches: the model's shape is %1, built from these figures on the family's closest preset")
                    .arg(QString::fromStdString(setup.input.model.name));
    inferredLabel_->setText(text);
    inferredLabel_->setToolTip(hows.join('\n'));
    inferredLabel_->show();
    prefillFromSnapshot();
}

void EstimatorPanel::prefillFromSnapshot()
{
    if (!inferred_ || !inferred_->hasShape)
        return;
    EstimateInput in = inferred_->input;
    in.gpuBytes = input().gpuBytes;
    fixLabel_->hide();
    setInput(in);
    recordingInput_ = input();
    recompute();
}

bool EstimatorPanel::atRecording() const
{
    if (!recordingInput_ || !measured_ || recordedSavings_.empty())
        return false;
    EstimateInput in = input();
    in.gpuBytes = recordingInput_->gpuBytes;
    return in == *recordingInput_;
}

void EstimatorPanel::showFix(const Fix &fix)
{
    QString text = tr("<b>%1</b>: saves %2 of the measured peak (peak after %3%4)")
                       .arg(QString::fromStdString(fix.technique), bytesText(uint64_t(fix.savesBytes)), bytesText(fix.peakAfterBytes),
                            fix.fits ? (*fix.fits ? tr(", fits") : tr(", still does not fit")) : QString());
    if (fix.applied && inferred_ && inferred_->hasShape) {
        EstimateInput in = *fix.applied;
        in.gpuBytes = input().gpuBytes;
        setInput(in);
        text += tr(" — shown applied below");
    } else {
        text += tr(" — not a setting of the estimator");
    }
    fixLabel_->setText(text + "<br/>" + QString::fromStdString(fix.why).toHtmlEscaped());
    fixLabel_->show();
}

QString EstimatorPanel::inferredText() const
{
    if (!inferred_)
        return {};
    return inferredLabel_->text() + "\n" + (fixLabel_->isHidden() ? QString() : fixLabel_->text());
}

void EstimatorPanel::applyTechnique(const QString &technique)
{
    const Technique *t = findTechnique(technique.toStdString());
    if (!t)
        return;
    EstimateInput in = input();
    t->apply(in);
    setInput(in);
}

void EstimatorPanel::recompute()
{
    if (updating_)
        return;
    const EstimateInput in = input();
    result_ = estimate(in);
    const EstimateResult &r = result_;
    // The parts alive at the peak phase, as the estimator counts them.
    std::vector<BreakdownBar::Part> parts;
    for (const EstimatePartBytes &p : r.peakParts) {
        const auto [name, color] = partLook(p.part);
        parts.push_back({name, p.bytes, color});
    }
    bar_->setParts(parts, double(in.gpuBytes), measured_ ? double(*measured_) : 0.0);
    QString text = tr("<b>Peak allocated %1</b> (%2) · reserved %3 · CUDA context %4")
                       .arg(bytesText(r.peakAllocatedBytes), QString::fromLatin1(estimatePhaseName(r.peakPhase)), bytesText(r.reservedBytes), bytesText(r.contextBytes));
    text += tr("<br/>%1 parameters (%2 trainable) · activations %3 · logits and loss %4")
                .arg(QString::fromStdString(groupDigits(r.params)), QString::fromStdString(groupDigits(r.trainableParams)),
                     bytesText(r.activationsBytes), bytesText(r.logitsBytes));
    if (in.gpuBytes)
        text += r.fits ? tr("<br/><span style='color:#2e7d32'>Fits in %1</span>").arg(bytesText(in.gpuBytes))
                       : tr("<br/><span style='color:#dc2828'>Does not fit in %1</span>").arg(bytesText(in.gpuBytes));
    if (measured_) {
        // A run that died before its first optimizer step (no optimizer state recorded) is
        // compared with the first iteration's forward and loss, not with the steady state.
        const bool firstIteration = measuredCutShort_ && measuredCategories_ && (*measuredCategories_)[size_t(Category::OptimizerState)] == 0 &&
                                    r.phases.count(EstimatePhase::FirstForwardLoss);
        const uint64_t compared = firstIteration ? r.phases.at(EstimatePhase::FirstForwardLoss) : r.peakAllocatedBytes;
        QString deviation = tr("%1 %2 %3")
                                .arg(firstIteration ? tr("first forward+loss, no optimizer state yet:") : tr("estimate"))
                                .arg(compared >= *measured_ ? "+" : "−")
                                .arg(QString::number(100.0 * std::abs(double(compared) - double(*measured_)) / double(*measured_), 'f', 1) + " %");
        // Another model's shape is no measure of the estimator: say so instead of a deviation.
        if (const auto params = inferred_ ? inferred_->params.value : std::nullopt;
            params && std::abs(double(r.params) - double(*params)) > 0.02 * double(*params))
            deviation = tr("not comparable: this shape has %1 parameters, the snapshot's model %2")
                            .arg(QString::fromStdString(groupDigits(r.params)), QString::fromStdString(groupDigits(*params)));
        text += measuredCutShort_ ? tr("<br/>Measured in %1: it ran out of memory and needed at least <b>%2</b> (allocated at the OOM plus the "
                                       "failed request; %3)")
                                        .arg(measuredSource_.toHtmlEscaped(), bytesText(*measured_), deviation)
                                  : tr("<br/>Measured in %1: <b>%2</b> (%3)").arg(measuredSource_.toHtmlEscaped(), bytesText(*measured_), deviation);
    }
    if (measuredCategories_) {
        const auto &m = *measuredCategories_;
        text += tr("<br/>At its peak: parameters %1 (estimate %2) · gradients %3 (%4) · optimizer state %5 (%6) · "
                   "activations and temporaries %7 (activations and logits %8)")
                    .arg(bytesText(m[size_t(Category::Parameter)]), bytesText(r.parametersBytes + r.gatheredBytes), bytesText(m[size_t(Category::Gradient)]),
                         bytesText(r.peakPhase == EstimatePhase::OptimizerStep ? r.gradientsBytes : 0), bytesText(m[size_t(Category::OptimizerState)]),
                         bytesText(r.optimizerBytes), bytesText(m[size_t(Category::Activation)] + m[size_t(Category::Temporary)]))
                    .arg(bytesText(r.peakPhase == EstimatePhase::OptimizerStep ? 0 : r.activationsBytes + r.logitsBytes));
    }
    savings_->clear();
    // On the recording's own setup a technique the advice priced saves what the advice says,
    // from the recording; the model's figure, off by the estimate's deviation, is only beside it.
    const bool recorded = atRecording() && std::any_of(r.savings.begin(), r.savings.end(), [&](const auto &s) {
                              return recordedSavings_.count(s.first) > 0;
                          });
    if (recorded)
        text += tr("<br/>Savings priced on the recording, as the Summary's fixes (the model's own in brackets)");
    figures_->setText(text);
    std::vector<std::tuple<std::string, int64_t, std::optional<int64_t>>> bySaving;
    for (const auto &[technique, bytes] : r.savings) {
        const auto advised = recordedSavings_.find(technique);
        if (recorded && advised != recordedSavings_.end())
            bySaving.emplace_back(technique, advised->second, bytes);
        else
            bySaving.emplace_back(technique, bytes, std::nullopt);
    }
    std::stable_sort(bySaving.begin(), bySaving.end(), [](const auto &a, const auto &b) { return std::get<1>(a) > std::get<1>(b); });
    for (const auto &[technique, bytes, model] : bySaving) {
        QString line = bytes > 0 ? tr("%1: saves %2").arg(QString::fromStdString(technique), bytesText(uint64_t(bytes)))
                                 : tr("%1: saves nothing here").arg(QString::fromStdString(technique));
        if (model)
            line += tr(" (model: %1)").arg(bytesText(uint64_t(std::max<int64_t>(0, *model))));
        else if (recorded)
            line += tr(" (model only: the advice does not price it here)");
        auto *item = new QListWidgetItem(line, savings_);
        item->setData(Qt::UserRole, QString::fromStdString(technique));
    }
    fit_->clear();
}

QString EstimatorPanel::figuresText() const
{
    return figures_->text();
}

} // namespace memlens
