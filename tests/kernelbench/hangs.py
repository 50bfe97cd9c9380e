"""error: never returns (the watchdog kills the worker); the run goes on."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.shape = tuple(normalized_shape)

    def forward(self, x):
        while True:
            pass
