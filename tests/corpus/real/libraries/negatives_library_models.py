"""Look-alikes of `library_models.py` that are correct, and library calls whose output
GradGuard cannot know (and so stays silent about).

Sources (rewritten in our own words, structure kept): the fixes discussed in
https://github.com/pytorch/pytorch/issues/4932 (validation under `torch.no_grad()`),
https://github.com/hszhao/semseg/issues/60 (the model call inside `no_grad`),
https://github.com/openai/CLIP/issues/16 (`.detach()` before `.numpy()`).
"""

import timm
import torch
import torchvision
from torch import nn
from torchvision import models
from peft import LoraConfig, get_peft_model
from transformers import AutoModel, AutoModelForCausalLM, AutoModelForSequenceClassification


def validate(val_loader, model, criterion):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for images, target in val_loader:
            total += criterion(model(images), target)
    return total


def validate_items(val_loader, model, criterion):
    model.eval()
    total = 0.0
    for images, target in val_loader:
        total += criterion(model(images), target).item()
    return total


def main(train_loader, val_loader):
    model = models.resnet18(num_classes=10)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        model.train()
        for images, target in train_loader:
            optimizer.zero_grad()
            criterion(model(images), target).backward()
            optimizer.step()
        validate(val_loader, model, criterion)
        validate_items(val_loader, model, criterion)


# Outputs kept in eval mode, then backpropagated on purpose: no graph is kept in vain.
def distill(teacher_batches, student):
    student.eval()
    kept = []
    for x in teacher_batches:
        kept.append(student(x))
    torch.stack(kept).mean().backward()


# Eval mode once, then train mode at the end of every epoch: from the second epoch on, the
# loop below is not an evaluation loop at all (GG204 is about eval-mode loops).
def epochs(net, batches, opt):
    net.eval()
    for _ in range(3):
        scores = []
        for x in batches:
            scores.append(net(x))
        net.train()
        opt.zero_grad()
        torch.cat(scores).sum().backward()
        opt.step()


def plot_scores(image):
    classifier = models.resnet50(weights=None)
    with torch.no_grad():
        scores = torch.softmax(classifier(image), dim=1)
    print(scores.numpy())
    print(classifier(image).detach().numpy())
    print(classifier(image).argmax(1).numpy())


def frozen_backbone(images):
    backbone = timm.create_model("resnet18", pretrained=True)
    for p in backbone.parameters():
        p.requires_grad = False
    print(backbone(images).numpy())


def feature_maps(images):
    # features_only=True returns a list of feature maps: the structure is not a tensor.
    extractor = timm.create_model("resnet18", features_only=True)
    maps = extractor(images)
    print(len(maps))


def detection(images, targets):
    # Detection models return a dict of losses in train mode: not in the table.
    detector = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights=None)
    losses = detector(images, targets)
    print(losses)


def hidden(batch):
    # A bare AutoModel returns what its architecture returns: unknown fields stay silent.
    encoder = AutoModel.from_pretrained("bert-base-uncased")
    out = encoder(**batch)
    print(out.pooler_output.numpy())


def tuples(batch):
    model = AutoModelForSequenceClassification.from_pretrained("x", return_dict=False)
    out = model(**batch)
    print(out[0])
    scorer = AutoModelForSequenceClassification.from_pretrained("x")
    with torch.no_grad():
        print(scorer(**batch).logits.numpy())


def sample_scores(batch):
    model = get_peft_model(AutoModelForCausalLM.from_pretrained("gpt2"), LoraConfig(r=8))
    with torch.no_grad():
        scores = model(**batch).logits[:, -1]
    wrapped = get_peft_model(load_somehow(), LoraConfig(r=8))  # an unknown base: unknown
    return scores.softmax(-1).numpy(), wrapped(**batch).logits.numpy()


def load_somehow():
    return torch.load("model.pt")
