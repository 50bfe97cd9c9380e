"""passed: its CUDA extension never builds and it falls back to F.layer_norm without a word; the
report labels it: only PyTorch's own kernels ran."""
import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from torch.utils.cpp_extension import load_inline

    _extension = load_inline(name="fallback_layer_norm", cpp_sources="this is not C++",
                             functions=["layer_norm"], verbose=False)
except Exception:  # what such submissions do: carry on with PyTorch's
    _extension = None


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.shape = tuple(normalized_shape)
        self.weight = nn.Parameter(torch.ones(self.shape))
        self.bias = nn.Parameter(torch.zeros(self.shape))

    def forward(self, x):
        if _extension is not None:
            return _extension.layer_norm(x, self.weight, self.bias)
        return F.layer_norm(x, self.shape, self.weight, self.bias, 1e-5)
