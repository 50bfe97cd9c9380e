"""error: returns one value per row instead of the normalized tensor."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.shape = tuple(normalized_shape)
        self.weight = nn.Parameter(torch.ones(self.shape))
        self.bias = nn.Parameter(torch.zeros(self.shape))

    def forward(self, x):
        return x.flatten(x.dim() - len(self.shape)).mean(dim=-1)
