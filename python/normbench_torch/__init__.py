"""normbench_torch: what only Python can do for normbench. normbench's device worker embeds a
Python interpreter and calls normbench_torch.bridge to build and call Python candidates
(`normbench run --torch`, `--python module:function`, `--kernelbench FILE.py`) on its own device
buffers and stream; everything else (inputs, reference, verification, checks, timing, report)
is normbench's. The modules import without torch; building a candidate needs it."""

__version__ = "4"  # 4: candidates of normbench's own harness (the worker's embedded Python)
