"""passed: KernelBench's RMSNorm (level 1 #36, over dim 1, no weight), computed in float32 and
rounded once; not_supported where the problem has a weight."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        rms = torch.sqrt(torch.mean(xf ** 2, dim=1, keepdim=True) + self.eps)
        return (xf / rms).to(x.dtype)
