"""failed: the unbiased variance (n - 1), wrong by sqrt(n / (n - 1)) on short rows."""
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
        mean = x.mean(dim=dims, keepdim=True)
        var = x.var(dim=dims, keepdim=True, unbiased=True)
        return (x - mean) / torch.sqrt(var + 1e-5) * self.weight + self.bias
