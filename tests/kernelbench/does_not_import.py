"""error: does not import (a module that does not exist)."""
import torch.nn as nn
import kernels_that_are_not_there  # noqa: F401


class ModelNew(nn.Module):
    pass
