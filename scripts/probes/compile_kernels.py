"""What torch.compile generates for a few of configs/decode.json's rows: F.rms_norm (and x + r,
then F.rms_norm) of bfloat16 rows, compiled as normbench's torch.compile candidate compiles them
(dynamic=False, fullgraph=True). Run with the generated code logged and a fresh cache, whose
<kernel>.best_config files then hold the configs autotuning chose:

    TORCHINDUCTOR_CACHE_DIR=/tmp/inductor TORCH_LOGS=output_code python3 scripts/probes/compile_kernels.py

Not part of normbench: a probe for kernels/NOTES.md.
"""
import torch
import torch.nn.functional as F

CASES = [("rms_norm", 1, 4096), ("rms_norm", 512, 4096), ("rms_norm", 32, 8192),
         ("add_rms_norm", 512, 4096), ("add_rms_norm", 1, 8192), ("rms_norm", 512, 5120)]

for op, rows, hidden in CASES:
    torch._dynamo.reset()
    x, r = (torch.randn(rows, hidden, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    w = torch.randn(hidden, device="cuda", dtype=torch.bfloat16)
    if op == "rms_norm":
        def f(x, w, r):
            return F.rms_norm(x, (hidden,), w, 1e-5)
    else:
        def f(x, w, r):
            s = x + r
            return F.rms_norm(s, (hidden,), w, 1e-5), s
    print("=== case", op, rows, hidden, flush=True)
    torch.compile(f, dynamic=False, fullgraph=True)(x, w, r)
    torch.cuda.synchronize()
