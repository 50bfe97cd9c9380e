"""error: reads address 0 from the host (SIGSEGV in the worker); the run goes on."""
import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.shape = tuple(normalized_shape)

    def forward(self, x):
        return ctypes.string_at(0)
