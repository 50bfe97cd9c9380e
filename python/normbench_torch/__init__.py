"""normbench_torch: PyTorch, callables and KernelBench-style submissions on normbench's
problems, with normbench's inputs, verification, timing method and report schema.
`python -m normbench_torch --help`; the modules import without torch (only running needs it)."""

__version__ = "3"  # 3: dtypes, layouts, rms_norm and add_rms_norm; mismatches name their tensor
