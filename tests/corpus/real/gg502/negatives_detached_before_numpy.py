"""The fixed NumPy conversions: detached first, collected as numbers, or computed under no_grad.

Sources (rewritten in our own words, structure kept):
* https://github.com/zhuangdizhu/FedGen/issues/15 - the reporter's fix: detach the user losses
  before NumPy sees them.
* https://github.com/xiaxin1998/DHCN/issues/8 - the maintainer's fix: reduce with torch, not NumPy.
* https://github.com/tkalayci71/embedding-inspector/issues/22 - the vector detached before plotting.
* https://github.com/XiaMooo/Yolo-Detect-Layer-Visualization/issues/1 - the maintainer's fix:
  `array.detach().cpu().numpy()`.
* https://github.com/adjidieng/DETM/pull/11 - `gamma.detach().numpy()`.
"""

import numpy as np
import torch
from torch import nn


class Server:
    def __init__(self, users):
        self.users = users

    def evaluate(self):
        test_samples, test_losses = [], []
        for c in self.users:
            _, c_loss, ns = c.test()
            test_samples.append(ns)
            test_losses.append(c_loss.detach())
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)
        return glob_loss


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
        item_embeddings = torch.stack(final).sum(0)
        return item_embeddings / (self.layers + 1)


def inspect_fresh_table_detached(token_id, plot):
    embedding_layer = nn.Embedding(100, 16)
    emb_vec = embedding_layer.weight[token_id].detach()
    x = torch.arange(emb_vec.shape[0])
    plot(x.numpy(), emb_vec.numpy())


def plot_multi_heatmap(*arrays, draw):
    for i, array in enumerate(arrays):
        if isinstance(array, torch.Tensor):
            array = array.detach().cpu().numpy()
        draw(i, array)


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
        top_words = list(gamma.detach().numpy().argsort()[-num_words + 1 :][::-1])
        topics.append(top_words)
    return topics


def visualize_topics_no_grad(num_words):
    model = TopicModel()
    model.eval()
    with torch.no_grad():
        beta = model.get_beta()
    return [list(beta[k].numpy().argsort()[-num_words + 1 :][::-1]) for k in range(beta.shape[0])]


def topic_indices(num_words):
    model = TopicModel()
    beta = model.get_beta()
    _, top = torch.topk(beta, num_words, dim=1)
    return top.numpy()
