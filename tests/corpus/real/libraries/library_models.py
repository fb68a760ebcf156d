"""Models built by torchvision, timm and transformers: the library table
(`gradguard.analysis.libraries`) says they own parameters that require grad and what calling
them returns, so the usual rules apply to them.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/pytorch/issues/4932 - the imagenet example's `validate()` with a
  torchvision model: `model.eval()` alone, memory grows through validation.
* https://github.com/hszhao/semseg/issues/60 - `model.eval()` then a validation loop over
  `val_loader` outside `torch.no_grad()`; out of memory after each epoch's validation.
* https://github.com/jacobgil/pytorch-grad-cam/issues/80 - a `resnet50(pretrained=True)`
  whose output is used for a backward pass and for plotting.
* https://github.com/openai/CLIP/issues/16 - probabilities from a pretrained model turned into
  a NumPy array; "Can't call numpy() on Tensor that requires grad".
"""

import matplotlib.pyplot as plt
import timm
import torch
import torchvision
from torch import nn
from torchvision import models
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer


# Source: pytorch#4932 - validate() of an epoch loop that also trains; the model is a
# torchvision builder's, handed in as a parameter.
def validate(val_loader, model, criterion):
    model.eval()
    total = 0.0
    for images, target in val_loader:  # expect: GG204
        output = model(images)
        total += criterion(output, target)
    return total / len(val_loader)


def train_one_epoch(loader, model, criterion, optimizer):
    model.train()
    for images, target in loader:
        optimizer.zero_grad()
        loss = criterion(model(images), target)
        loss.backward()
        optimizer.step()


def main_imagenet(train_loader, val_loader):
    model = models.resnet18(num_classes=10)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(90):
        train_one_epoch(train_loader, model, criterion, optimizer)
        print(epoch, validate(val_loader, model, criterion))


# Source: semseg#60 - the same at module level: training and validation in one epoch loop.
net = torchvision.models.mobilenet_v3_small(num_classes=4)
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.Adam(net.parameters())
train_batches, val_batches = [], []
for epoch in range(5):
    net.train()
    for x, y in train_batches:
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()
    net.eval()
    val_loss = 0
    for x, y in val_batches:  # expect: GG204
        val_loss += loss_fn(net(x), y)
    print(epoch, val_loss)


# Source: pytorch-grad-cam#80 - scores of a pretrained classifier plotted straight away.
def plot_scores(image):
    classifier = models.resnet50(weights=None)
    scores = torch.softmax(classifier(image), dim=1)
    plt.bar(range(1000), scores[0].numpy())  # expect: GG502


# Source: CLIP#16 - the pattern with a timm model: the output of a forward pass run with
# grad on, converted to NumPy.
def embed(images):
    backbone = timm.create_model("resnet18", pretrained=True, num_classes=0)
    features = backbone(images)
    return features.numpy()  # expect: GG502


# An entropy loss computed under no_grad from a timm model, then backpropagated.
def finetune_step(images, optimizer):
    model = timm.create_model("vit_small_patch16_224", num_classes=3)
    with torch.no_grad():  # expect: GG101
        logits = model(images)
    loss = -(logits.softmax(1) * logits.log_softmax(1)).sum(1).mean()
    loss.backward()
    optimizer.step()


# A Hugging Face classifier: `outputs.logits` requires grad after a forward pass with grad on.
def classify(texts):
    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
    batch = tokenizer(texts, return_tensors="pt", padding=True)
    outputs = model(**batch)
    return outputs.logits.softmax(-1).numpy()  # expect: GG502


# A LoRA-wrapped causal LM (peft): the adapters require grad, so the logits do too.
def sample_scores(batch):
    base = AutoModelForCausalLM.from_pretrained("gpt2")
    model = get_peft_model(base, LoraConfig(r=8, target_modules=["c_attn"]))
    scores = model(**batch).logits[:, -1]
    return scores.softmax(-1).numpy()  # expect: GG502
