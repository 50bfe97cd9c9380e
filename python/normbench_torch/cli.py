"""python -m normbench_torch: PyTorch (eager, torch.compile) or one's own callable or
KernelBench-style submission on normbench's problems, with normbench's inputs (bit for bit),
verification, timing method and report schema.

    python -m normbench_torch --config configs/kernelbench.json --out results/torch.json
    python -m normbench_torch --config configs/kernelbench.json --kernelbench my_submission.py
    python -m normbench_torch --config configs/smoke.json --callable my_module:my_layer_norm
    normbench report results/normbench.json results/torch.json --out results/report.html

Without --callable or --kernelbench it evaluates torch.eager and torch.compile; with them,
only those (add --torch for both). Exit codes as normbench: 0 all verified, 1 a candidate
failed or errored, 2 bad usage, config or files (--out naming an input, a --normbench that is
not normbench), or no NumPy, 3 no GPU, no torch, or a CUDA fault that stopped the run (what ran
is still written; the rest is not_run).
"""

import argparse
import json
import os
import sys

from . import __version__
from .candidates import Callable, TorchCompile, TorchEager
from .kernelbench import KernelBench
from .errors import EXIT_RUNTIME, EXIT_USAGE, UsageError
from .plan import REPO_ROOT, find_normbench, load_plan


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m normbench_torch",
        description="Verify and time PyTorch, a callable or a KernelBench-style submission on "
                    "normbench's problems; writes a normbench report (schema_version 2).")
    parser.add_argument("--config", default=os.path.join(REPO_ROOT, "configs", "kernelbench.json"),
                        help="normbench config (default: configs/kernelbench.json)")
    parser.add_argument("--out", help="report file (default: torch-<config name>.json)")
    parser.add_argument("--problem", action="append", default=[], help="only this problem id (repeatable)")
    parser.add_argument("--trials", type=int, help="override the trials of every problem")
    parser.add_argument("--seed", type=int, help="override the seed of every problem")
    parser.add_argument("--device", type=int, default=0, help="CUDA device index")
    parser.add_argument("--normbench", help="the normbench program (default: $NORMBENCH, PATH, build/normbench)")
    parser.add_argument("--callable", action="append", default=[], metavar="MODULE:FUNCTION",
                        help="evaluate FUNCTION(x, weight, bias, problem) -> y; for add_rms_norm "
                             "FUNCTION(x, weight, bias, problem, residual=r) -> (y, s) (repeatable)")
    parser.add_argument("--kernelbench", action="append", default=[], metavar="FILE.py",
                        help="evaluate a KernelBench-style file's ModelNew (repeatable)")
    parser.add_argument("--torch", action="store_true",
                        help="also torch.eager and torch.compile when --callable or --kernelbench is given")
    parser.add_argument("--no-compile", action="store_true", help="no torch.compile")
    parser.add_argument("--compile-mode", default="default",
                        choices=("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"),
                        help="torch.compile mode (default: default)")
    parser.add_argument("--no-gpu-hold", action="store_true",
                        help="no ~1 ms GPU spin before each sample: times then include Python's "
                             "dispatch whenever it outlasts the L2 eviction")
    parser.add_argument("--from-tensors", metavar="DIR",
                        help="inputs from DIR/<problem>/trial<k>/{x,residual,weight,bias}.npy "
                             "(normbench run --save-tensors DIR: float32, logical order) instead of "
                             "generating them")
    parser.add_argument("--allow-faster-than-copy", action="store_true",
                        help="a median faster than the copy floor warns instead of failing")
    args = parser.parse_args(argv)
    if args.trials is not None and not 1 <= args.trials <= 1000000:
        parser.error("--trials: allowed: 1 to 1000000")
    if args.seed is not None and not 0 <= args.seed < 1 << 64:
        parser.error("--seed: allowed: an unsigned 64-bit integer, 0 to 18446744073709551615")
    return args


def make_candidates(args):
    candidates = [Callable(spec) for spec in args.callable]
    candidates += [KernelBench(path) for path in args.kernelbench]
    if not candidates or args.torch:
        torch_ones = [TorchEager()] + ([] if args.no_compile else [TorchCompile(args.compile_mode)])
        candidates = torch_ones + candidates
    ids = [c.id for c in candidates]
    for i in ids:
        if ids.count(i) > 1:
            raise UsageError("two candidates have the id %s; allowed: distinct ones" % i)
    return candidates


def refuse_overwriting_inputs(out, inputs):
    """Writing the report over its config (or a submission) would destroy it."""
    for path in inputs:
        if os.path.realpath(out) == os.path.realpath(path):
            raise UsageError("--out %s: is the input file %s, which writing would overwrite; "
                             "allowed: a path that is not an input" % (out, path))


def settings_json(args, candidates, l2_eviction):
    return {"problems": args.problem, "kernels": [c.id for c in candidates],
            "trials_override": args.trials, "seed_override": args.seed, "timing": True,
            "device": args.device, "host_threads": None, "save_tensors": None,
            "allow_faster_than_copy": args.allow_faster_than_copy,
            "isolation": "none (one Python process)",
            "from_tensors": args.from_tensors, "compile_mode": args.compile_mode,
            "gpu_hold": not args.no_gpu_hold, "l2_eviction": l2_eviction}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv)
    except SystemExit as e:  # argparse: --help exits 0, errors 2
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    try:
        normbench = find_normbench(args.normbench)
        config, problems = load_plan(normbench, args.config, args.problem, args.trials, args.seed)
        candidates = make_candidates(args)
        if args.from_tensors and not os.path.isdir(args.from_tensors):
            raise UsageError("--from-tensors %s: no such folder" % args.from_tensors)
        out = args.out or "torch-%s.json" % config["name"]
        refuse_overwriting_inputs(out, [args.config] + args.kernelbench)
    except UsageError as e:
        sys.stderr.write("normbench_torch: %s\n" % e)
        return EXIT_USAGE
    try:
        import torch
    except ImportError:
        sys.stderr.write("normbench_torch: PyTorch is not installed (pip install torch)\n")
        return EXIT_RUNTIME
    if not torch.cuda.is_available() or args.device >= torch.cuda.device_count():
        sys.stderr.write("normbench_torch: no CUDA device %d (torch %s)\n" % (args.device, torch.__version__))
        return EXIT_RUNTIME
    return run(torch, args, config, problems, candidates, out, argv)


def run(torch, args, config, problems, candidates, out, argv):
    from .generator import TorchBackend
    from .gpu import Gpu
    from .inputs import self_check_generator
    from .report import build_report, exit_code_for, print_table, write_atomically
    from .runner import Context, new_kernel, progress, run_problem

    gpu = Gpu(torch, args.device, hold=not args.no_gpu_hold)
    device = gpu.info(args.device)
    backend = TorchBackend(torch, gpu.device)
    results, aborted, copy = [], "", None
    try:
        if not args.from_tensors:
            self_check_generator(backend, problems)
        progress("measuring copy bandwidth")
        copy = gpu.copy_bandwidth()
        ctx = Context(torch, gpu, backend, copy, args.from_tensors, args.allow_faster_than_copy)
        for p in problems:
            run_problem(ctx, p, candidates, results)
    except Exception as e:  # a CUDA fault: the context is gone; report what ran
        aborted = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
        done = {r["problem"]["id"] for r in results}
        for r in results:
            for k in r["kernels"]:
                if k["status"] == "not_run":  # its trials did not all run
                    k["reason"] = "not run: the run stopped early (%s)" % aborted
        for p in problems:
            if p["id"] not in done:
                kernels = [new_kernel(c, p) for c in candidates]
                for k in kernels:
                    k["reason"] = "not run: the run stopped early (%s)" % aborted
                results.append({"problem": p, "kernels": kernels, "skipped": False, "reason": ""})
    tool_version = "%s (torch %s)" % (__version__, torch.__version__)
    report = build_report(config, settings_json(args, candidates, gpu.l2_eviction), tool_version,
                          device, copy, results, aborted, argv)
    write_atomically(out, json.dumps(report, indent=2) + "\n")
    print_table(results, copy)
    print("\nreport: %s" % out)
    if aborted:
        sys.stderr.write("normbench_torch: run aborted: %s\n" % aborted)
    return exit_code_for(results, aborted)
