"""Tensors that still require grad handed to NumPy (GG502).

Sources (rewritten in our own words, structure kept):
* https://github.com/zhuangdizhu/FedGen/issues/1 (and #15) - the server's `evaluate()` gathers
  each user's test loss (a tensor with history) and weights it with `np.sum([x * y ...])`.
* https://github.com/xiaxin1998/DHCN/issues/8 - a hypergraph convolution's forward collects the
  layer outputs in a list and reduces them with `np.sum(final, 0)`.
* https://github.com/tkalayci71/embedding-inspector/issues/22 - an embedding vector read from the
  text encoder's embedding table is plotted with `emb_vec.numpy()`.
* https://github.com/XiaMooo/Yolo-Detect-Layer-Visualization/issues/1 - `plot_multi_heatmap`
  turns every tensor it is given into an array with `array.cpu().numpy()`.
* https://github.com/adjidieng/DETM/pull/11 - the topic model's `get_beta()` output is turned into
  an array to print the top words of each topic.
"""

import numpy as np
import torch
from torch import nn


class User:
    def __init__(self, model, test_batches):
        self.model = model
        self.test_batches = test_batches
        self.loss = nn.CrossEntropyLoss()

    def test(self):
        test_acc = 0
        loss = 0
        for x, y in self.test_batches:
            output = self.model(x)
            loss += self.loss(output, y)
            test_acc += (torch.argmax(output, dim=1) == y).sum().item()
        return test_acc, loss, len(self.test_batches)


# Source: FedGen#1, serverbase.evaluate(): losses come back from every user's test().
class Server:
    def __init__(self, users):
        self.users = users

    def test(self):
        num_samples, tot_correct, losses = [], [], []
        for c in self.users:
            ct, c_loss, ns = c.test()
            tot_correct.append(ct * 1.0)
            num_samples.append(ns)
            losses.append(c_loss)
        return num_samples, tot_correct, losses

    def evaluate(self):
        test_samples, test_accs, test_losses = self.test()
        glob_acc = np.sum(test_accs) * 1.0 / np.sum(test_samples)
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)  # missed: GG502
        return glob_acc, glob_loss


# Source: DHCN#8, HyperConv.forward: the layer sums the embeddings of every step in NumPy.
class HyperConv(nn.Module):
    def __init__(self, layers, emb_size=8):
        super().__init__()
        self.layers = layers
        self.proj = nn.Linear(emb_size, emb_size)

    def forward(self, adjacency, embedding):
        item_embeddings = self.proj(embedding)
        final = [item_embeddings]
        for _ in range(self.layers):
            item_embeddings = torch.sparse.mm(adjacency, item_embeddings)
            final.append(item_embeddings)
        item_embeddings = np.sum(final, 0)  # expect: GG502
        return item_embeddings / (self.layers + 1)


# Source: embedding-inspector#22, do_inspect(): the vector of one token is plotted.
def inspect_token(text_encoder, token_id, plot):
    embedding_layer = text_encoder.get_input_embeddings()
    emb_vec = embedding_layer.weight[token_id]
    x = torch.arange(emb_vec.shape[0])
    plot(x.numpy(), emb_vec.numpy())  # missed: GG502


# The same read on an embedding table built in the file.
def inspect_fresh_table(token_id, plot):
    embedding_layer = nn.Embedding(100, 16)
    emb_vec = embedding_layer.weight[token_id]
    x = torch.arange(emb_vec.shape[0])
    plot(x.numpy(), emb_vec.numpy())  # expect: GG502


# The same read "fixed" with torch.no_grad(): indexing returns a view of the weight, and a view
# of a leaf that requires grad still requires grad under no_grad (checked with torch 2.13.0),
# so .numpy() raises exactly as before.
def inspect_fresh_table_no_grad(token_id, plot):
    embedding_layer = nn.Embedding(100, 16)
    with torch.no_grad():
        emb_vec = embedding_layer.weight[token_id]
    x = torch.arange(emb_vec.shape[0])
    plot(x.numpy(), emb_vec.numpy())  # missed: GG502


# Source: Yolo-Detect-Layer-Visualization#1: arrays are the outputs of the detection heads.
def plot_multi_heatmap(*arrays, draw):
    for i, array in enumerate(arrays):
        if isinstance(array, torch.Tensor):
            array = array.cpu().numpy()  # missed: GG502
        draw(i, array)


def show_heads(model, image, draw):
    outputs = model(image)
    plot_multi_heatmap(*outputs, draw=draw)


# Source: DETM PR #11: printing the top words of each topic during training.
class TopicModel(nn.Module):
    def __init__(self, num_topics=3, vocab_size=20, rho_size=8):
        super().__init__()
        self.rho = nn.Linear(rho_size, vocab_size, bias=False)
        self.alphas = nn.Linear(rho_size, num_topics, bias=False)

    def get_beta(self):
        logit = self.alphas(self.rho.weight)
        return torch.softmax(logit, dim=0).transpose(1, 0)


def visualize_topics(num_words):
    model = TopicModel()
    beta = model.get_beta()
    topics = []
    for k in range(beta.shape[0]):
        gamma = beta[k]
        top_words = list(gamma.numpy().argsort()[-num_words + 1 :][::-1])  # expect: GG502
        topics.append(top_words)
    return topics
