// The estimator panel's two halves, laid out: the setup form and the results beside it (a file of
// their own: EstimatorPanel.cpp keeps what the panel computes and applies).
#include "estimator/EstimatorPanel.h"
#include "estimator/Techniques.h"
#include "style/ByteText.h"
#include "summary/BreakdownBar.h"
#include <algorithm>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QSpinBox>

namespace memlens {

namespace {

QSpinBox *spin(QWidget *parent, int lo, int hi, int value)
{
    auto *s = new QSpinBox(parent);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setAccelerated(true);
    return s;
}

} // namespace

// The setup on the left: model and shape, mode, precision, optimizer, batch and the techniques.
QFormLayout *EstimatorPanel::buildSetupForm()
{
    auto *form = new QFormLayout;
    model_ = new QComboBox(this);
    for (const ModelShape &m : modelPresets())
        model_->addItem(QString::fromStdString(m.name));
    mode_ = new QComboBox(this);
    mode_->addItems({"train", "inference"});
    precision_ = new QComboBox(this);
    for (Precision p : {Precision::Fp32, Precision::AmpBf16, Precision::Bf16, Precision::Fp16Amp})
        precision_->addItem(QString::fromStdString(precisionName(p)));
    optimizer_ = new QComboBox(this);
    for (Optimizer o : {Optimizer::AdamW, Optimizer::AdamW8bit, Optimizer::Sgd, Optimizer::Adafactor, Optimizer::Lion, Optimizer::None})
        optimizer_->addItem(QString::fromStdString(optimizerName(o)));
    fused_ = new QCheckBox(tr("fused step"), this);
    batch_ = spin(this, 1, 1 << 20, 8);
    seq_ = spin(this, 1, 1 << 22, 512);
    newTokens_ = spin(this, 0, 1 << 20, 128);
    gradAccum_ = spin(this, 1, 4096, 1);
    checkpointing_ = new QComboBox(this);
    checkpointing_->addItems({"none", "selective", "full", "every:2", "every:4"});
    attention_ = new QComboBox(this);
    attention_->addItems({"sdpa", "flash", "eager"});
    fusedNorm_ = new QCheckBox(tr("fused RMSNorm"), this);
    fusedNorm_->setToolTip(tr("RMSNorm as one op (torch.nn.RMSNorm, torchtitan) instead of transformers' Python ops"));
    loraRank_ = spin(this, 0, 4096, 0);
    loraTargets_ = new QComboBox(this);
    for (LoraTargets t : kLoraTargetNames.values())
        loraTargets_->addItem(QString::fromUtf8(kLoraTargetNames.name(t)), int(t));
    loraTargets_->setToolTip(tr("attention: q, k, v and o; q-v: q_proj and v_proj (PEFT's default for Llama); all-linear: every Linear"));
    qlora_ = new QCheckBox(tr("QLoRA (NF4 base weights)"), this);
    zero_ = spin(this, 0, 3, 0);
    gpus_ = spin(this, 1, 4096, 1);
    offload_ = new QCheckBox(tr("optimizer states on the CPU"), this);
    gpu_ = new QComboBox(this);
    gpu_->addItem(tr("(none)"), QVariant::fromValue<qulonglong>(0));
    for (const GpuPreset &g : gpuPresets())
        gpu_->addItem(QString::fromStdString(g.name), QVariant::fromValue<qulonglong>(g.bytes));
    form->addRow(tr("Model"), model_);
    layers_ = spin(this, 1, 1000, 12);
    hidden_ = spin(this, 1, 1 << 20, 768);
    heads_ = spin(this, 1, 4096, 12);
    kvHeads_ = spin(this, 1, 4096, 12);
    intermediate_ = spin(this, 1, 1 << 22, 3072);
    vocab_ = spin(this, 1, 1 << 24, 50257);
    auto *shape1 = new QHBoxLayout;
    shape1->addWidget(layers_);
    shape1->addWidget(hidden_);
    shape1->addWidget(heads_);
    auto *shape2 = new QHBoxLayout;
    shape2->addWidget(kvHeads_);
    shape2->addWidget(intermediate_);
    shape2->addWidget(vocab_);
    form->addRow(tr("Layers, hidden, heads"), shape1);
    form->addRow(tr("KV heads, MLP, vocabulary"), shape2);
    form->addRow(tr("Mode"), mode_);
    form->addRow(tr("Precision"), precision_);
    auto *opt = new QHBoxLayout;
    opt->addWidget(optimizer_, 1);
    opt->addWidget(fused_);
    form->addRow(tr("Optimizer"), opt);
    form->addRow(tr("Batch"), batch_);
    form->addRow(tr("Sequence / image size"), seq_);
    form->addRow(tr("New tokens (inference)"), newTokens_);
    form->addRow(tr("Gradient accumulation"), gradAccum_);
    form->addRow(tr("Checkpointing"), checkpointing_);
    auto *attention = new QHBoxLayout;
    attention->addWidget(attention_, 1);
    attention->addWidget(fusedNorm_);
    form->addRow(tr("Attention"), attention);
    auto *lora = new QHBoxLayout;
    lora->addWidget(loraRank_);
    lora->addWidget(loraTargets_, 1);
    form->addRow(tr("LoRA rank, targets"), lora);
    form->addRow(QString(), qlora_);
    auto *zero = new QHBoxLayout;
    zero->addWidget(zero_);
    zero->addWidget(new QLabel(tr("GPUs"), this));
    zero->addWidget(gpus_);
    form->addRow(tr("ZeRO stage / FSDP"), zero);
    form->addRow(QString(), offload_);
    form->addRow(tr("GPU"), gpu_);
    return form;
}

// The estimate on the right: what was inferred or applied, the breakdown, the figures, the
// techniques' savings and the fit buttons.
QVBoxLayout *EstimatorPanel::buildResults()
{
    auto *right = new QVBoxLayout;
    inferredLabel_ = new QLabel(this);
    inferredLabel_->setWordWrap(true);
    inferredLabel_->hide();
    fixLabel_ = new QLabel(this);
    fixLabel_->setWordWrap(true);
    fixLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fixLabel_->hide();
    right->addWidget(inferredLabel_);
    right->addWidget(fixLabel_);
    bar_ = new BreakdownBar(this);
    figures_ = new QLabel(this);
    figures_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    figures_->setWordWrap(true);
    savings_ = new QListWidget(this);
    savings_->setToolTip(tr("Click a technique to apply it"));
    auto *fitRow = new QHBoxLayout;
    auto *fitBatch = new QPushButton(tr("Largest batch that fits"), this);
    auto *fitSeq = new QPushButton(tr("Longest sequence that fits"), this);
    fit_ = new QLabel(this);
    fitRow->addWidget(fitBatch);
    fitRow->addWidget(fitSeq);
    fitRow->addWidget(fit_, 1);
    prefill_ = new QPushButton(tr("Use the snapshot's setup"), this);
    prefill_->setEnabled(false);
    prefill_->setToolTip(tr("Sets the model, precision, optimizer, tokens and checkpointing the open snapshot reveals"));
    fitRow->addWidget(prefill_);
    connect(prefill_, &QPushButton::clicked, this, &EstimatorPanel::prefillFromSnapshot);
    right->addWidget(bar_);
    right->addWidget(figures_);
    right->addWidget(new QLabel(tr("<b>What each technique would save</b> (click to apply)"), this));
    right->addWidget(savings_, 1);
    right->addLayout(fitRow);
    connect(fitBatch, &QPushButton::clicked, this, [this] { solveFit(true); });
    connect(fitSeq, &QPushButton::clicked, this, [this] { solveFit(false); });
    return right;
}

} // namespace memlens
