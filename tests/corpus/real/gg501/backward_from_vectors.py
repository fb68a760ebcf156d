"""backward() or autograd.grad() started from a tensor with several elements (GG501).

Sources (rewritten in our own words, structure kept):
* https://github.com/Animadversio/GAN-Geometry/issues/4 - `GANForwardHVPOperator`: the objective
  returns one activation per perturbed code and `torch.autograd.grad(activs, perturb_vecs)` is
  called on that vector; fixed with `activs.mean()`.
* https://github.com/1Konny/gradcam_plus_plus-pytorch/issues/7 - `GradCAM.forward` picks the
  score of the predicted class for a batch of images, `logit[:, class_idx]`, and calls
  `score.backward()`.
* https://github.com/cybertronai/autograd-hacks/issues/7 - per-example gradients on a model that
  outputs a vector: `output.backward()` with the vector as the "loss".
* https://github.com/WisconsinAIVision/MaskPoint/issues/7 - under `nn.DataParallel` the loss
  gathered from the replicas is a vector with one element per GPU.
"""

import torch
from torch import nn


# Source: GAN-Geometry#4: the generator and objective are handed in by the caller.
class GANForwardHVPOperator:
    def __init__(self, model, code, objective, preprocess):
        self.model = model
        self.code = code
        self.objective = objective
        self.preprocess = preprocess

    def select_code(self, vec, eps=1e-3):
        perturb_vecs = (self.code + eps * vec).detach().requires_grad_(True)
        img = self.model(perturb_vecs)
        resz_img = self.preprocess(img)
        activs = self.objective(resz_img)
        ftgrad_both = torch.autograd.grad(activs, perturb_vecs, retain_graph=False, create_graph=False, only_inputs=True)[0]  # missed: GG501
        return ftgrad_both


# The same operator with the generator and objective built in the file.
def hvp_with_known_networks(code, vec, eps=1e-3):
    generator = nn.Linear(8, 16)
    objective = nn.Linear(16, 4)
    perturb_vecs = (code + eps * vec).detach().requires_grad_(True)
    img = generator(perturb_vecs)
    activs = objective(torch.tanh(img))
    return torch.autograd.grad(activs, perturb_vecs)[0]  # expect: GG501


# Source: gradcam_plus_plus#7, GradCAM.forward for a batch.
class GradCAM:
    def __init__(self, model_arch, target_layer):
        self.model_arch = model_arch
        self.gradients = {}
        self.activations = {}
        target_layer.register_forward_hook(self._forward_hook)
        target_layer.register_full_backward_hook(self._backward_hook)

    def _forward_hook(self, module, inputs, output):
        self.activations["value"] = output

    def _backward_hook(self, module, grad_input, grad_output):
        self.gradients["value"] = grad_output[0]

    def forward(self, inputs, class_idx=None, retain_graph=False):
        logit = self.model_arch(inputs)
        if class_idx is None:
            score = logit[:, logit.max(1)[-1]].squeeze()
        else:
            score = logit[:, class_idx].squeeze()
        self.model_arch.zero_grad()
        score.backward(retain_graph=retain_graph)  # missed: GG501
        weights = self.gradients["value"].mean(dim=(2, 3), keepdim=True)
        return torch.relu((weights * self.activations["value"]).sum(1, keepdim=True))


# Source: autograd-hacks#7: the model's output vector is backpropagated as it is.
def per_example_grads(inputs):
    model = nn.Sequential(nn.Linear(10, 5), nn.ReLU(), nn.Linear(5, 3))
    output = model(inputs)
    output.backward()  # expect: GG501
    return [p.grad for p in model.parameters()]


# Source: MaskPoint#7, runner_pretrain.run_net: the wrapped model returns its loss.
def pretrain_epoch(base_model, train_dataloader, optimizer):
    base_model.train()
    for points in train_dataloader:
        _loss = base_model(points)
        _loss.backward()  # missed: GG501
        optimizer.step()
        base_model.zero_grad()
