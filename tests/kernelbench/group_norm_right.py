"""passed on group_norm, not_supported on layer_norm: nn.GroupNorm's own parameters."""
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features: int, num_groups: int):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)

    def forward(self, x):
        return self.gn(x)
