"""`torch.set_grad_enabled(<test of one name>)` and a backward on the branch that contradicts it.

The shape is the transfer-learning tutorial's train/val loop
(https://pytorch.org/tutorials/beginner/transfer_learning_tutorial.html), which is correct:
backward only where `phase == "train"`. The bugs are the ones users report when they move
the backward or flip the test (e.g. "element 0 of tensors does not require grad" threads
on discuss.pytorch.org with a validation phase).
"""

import torch
from torch import nn
import torch.nn.functional as F


def tutorial_shape(model, loaders, optimizer):
    for phase in ["train", "val"]:
        if phase == "train":
            model.train()
        else:
            model.eval()
        for inputs, labels in loaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                outputs = model(inputs)
                loss = F.cross_entropy(outputs, labels)
                if phase == "train":
                    loss.backward()
                    optimizer.step()


def flipped_test(model, loaders, optimizer):
    for phase in ["train", "val"]:
        for inputs, labels in loaders[phase]:
            with torch.set_grad_enabled(phase == "train"):  # expect: GG101
                loss = F.cross_entropy(model(inputs), labels)
            if phase == "val":
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


def negated_flag(model, batches, optimizer, training):
    for inputs, labels in batches:
        with torch.set_grad_enabled(training):  # expect: GG101
            loss = F.cross_entropy(model(inputs), labels)
        if not training:
            loss.backward()


def flag_checked_the_right_way(model, batches, optimizer, training):
    for inputs, labels in batches:
        with torch.set_grad_enabled(training):
            loss = F.cross_entropy(model(inputs), labels)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def not_equal_spelling(model, batches, phase):
    for inputs, labels in batches:
        with torch.set_grad_enabled(phase != "eval"):
            loss = F.cross_entropy(model(inputs), labels)
        if phase != "eval":
            loss.backward()


def other_name_tested(model, batches, phase, verbose):
    for inputs, labels in batches:
        with torch.set_grad_enabled(phase == "train"):
            loss = F.cross_entropy(model(inputs), labels)
        if verbose == "val":
            loss.backward()


def recomputed_outside(model, batches, phase):
    for inputs, labels in batches:
        with torch.set_grad_enabled(phase == "train"):
            loss = F.cross_entropy(model(inputs), labels)
        if phase == "val":
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
