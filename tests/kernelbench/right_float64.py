"""passed: right and slow, LayerNorm computed in float64 and rounded once."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.shape = tuple(normalized_shape)
        self.weight = nn.Parameter(torch.ones(self.shape))
        self.bias = nn.Parameter(torch.zeros(self.shape))

    def forward(self, x):
        dims = tuple(range(x.dim() - len(self.shape), x.dim()))
        xd = x.double()
        mean = xd.mean(dim=dims, keepdim=True)
        var = ((xd - mean) ** 2).mean(dim=dims, keepdim=True)
        return ((xd - mean) / torch.sqrt(var + 1e-5) * self.weight.double() + self.bias.double()).float()
