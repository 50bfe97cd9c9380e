"""error: never returns (the watchdog kills the worker); the run goes on."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.shape = tuple(normalized_shape)
        self.weight = nn.Parameter(torch.ones(self.shape))
        self.bias = nn.Parameter(torch.zeros(self.shape))

    def forward(self, x):
        while True:
            pass
