"""Verification against the float64 reference, as normbench's (app/check/verify.cpp): every
element of every output (y, and s for add_rms_norm) passes when |out - ref| <= atol + rtol *
|ref| (NaN and Inf only where the reference has the same); a trial's counts and errors
aggregate over all outputs, each mismatch names its tensor and its logical coordinates.

verify() runs on the GPU with torch, a slab of segments at a time; verify_arrays() is the same
on NumPy arrays (the CPU tests)."""

import math

from .generator import MASK64
from .inputs import CHUNK
from .reference import NumpyMath, TorchMath, expected_rows

MAX_MISMATCHES = 8  # per output, as verify_output's default
# ULP errors are counted in bins of 1/16 ULP up to 16 ULP, as app/check/accuracy.hpp does.
BINS_PER_ULP, ULP_CAP = 16, 16
ULP_BINS = BINS_PER_ULP * ULP_CAP


def fingerprint(torch, tensor):
    """A wrapping sum of (index-weighted) bits in memory order: equal data, equal fingerprint.
    `tensor` is dense (every input here is: contiguous or channels-last)."""
    if tensor is None:
        return 0
    flat = tensor.as_strided((tensor.numel(),), (1,))
    flat = flat.view(torch.int32 if tensor.element_size() == 4 else torch.int16)
    total = 0
    for first in range(0, flat.numel(), CHUNK):
        bits = flat[first:first + CHUNK].to(torch.int64)
        weights = 2 * torch.arange(first, first + bits.numel(), dtype=torch.int64, device=bits.device) + 1
        total = (total + int((bits * weights).sum())) & MASK64
    return total


def logical_reader(tensor):
    """read(first, n): elements [first, first + n) of `tensor` in the logical (row-major) order,
    whatever its memory format. A slab of whole leading-dim entries is copied alone (GroupNorm's
    slabs are whole samples); any other slab of a non-contiguous tensor comes from one logical
    copy of the whole tensor."""
    if tensor.is_contiguous():
        flat = tensor.view(-1)
        return lambda first, n: flat[first:first + n]
    inner = tensor[0].numel() if tensor.dim() > 0 and tensor.shape[0] > 0 else 1
    whole = []

    def read(first, n):
        if first % inner == 0 and n % inner == 0:
            return tensor[first // inner:(first + n) // inner].reshape(-1)
        if not whole:
            whole.append(tensor.reshape(-1))
        return whole[0][first:first + n]
    return read


def slab_rows(p):
    """Segments per slab: about CHUNK elements; for GroupNorm whole samples (the affine step
    reshapes a slab to samples x channels x spatial)."""
    per_slab = max(1, CHUNK // p["segment_size"])
    if p["op"] == "group_norm":
        per_slab = max(p["groups"], per_slab // p["groups"] * p["groups"])
    return per_slab


def reference_slabs(torch, p, inputs):
    """(first, count, {output: float64 reference of elements [first, first + count)})."""
    m, seg = TorchMath(torch), p["segment_size"]
    x_read = logical_reader(inputs["x"])
    r_read = logical_reader(inputs["residual"]) if "residual" in inputs else None
    per_slab = slab_rows(p)
    for s0 in range(0, p["num_segments"], per_slab):
        rows = min(per_slab, p["num_segments"] - s0)
        first, count = s0 * seg, rows * seg
        x = x_read(first, count).view(rows, seg)
        r = r_read(first, count).view(rows, seg) if r_read else None
        yield first, count, expected_rows(m, p, x, r, inputs.get("weight"), inputs.get("bias"))


def unravel(index, shape):
    coords = []
    for d in reversed(shape):
        coords.append(index % d)
        index //= d
    return coords[::-1]


def finite_or_none(v):
    return v if v is not None and math.isfinite(v) else None


class Tally:
    """What the check of one output found so far."""

    def __init__(self):
        self.checked = self.violations = self.nonfinite = 0
        self.max_abs = self.max_rel = self.err_sq = self.ref_sq = 0.0
        self.mismatches = []
        self.tolerance_use = self.max_ulp = 0.0
        self.ulp_counted = self.exactly_rounded = 0
        self.ulp_bins = [0] * (ULP_BINS + 1)

    def add(self, m, name, values, ref, first, p):
        """Checks float64 `values` against `ref`, elements [first, first + len) of output `name`."""
        tol = p["tolerance"]
        err = abs(values - ref)
        both_finite = m.isfinite(values) & m.isfinite(ref)
        ok = m.where(both_finite, err <= tol["atol"] + tol["rtol"] * abs(ref),
                     (m.isnan(values) & m.isnan(ref)) | (values == ref))
        finite_err = m.isfinite(err)
        if m.count(finite_err):
            self.max_abs = max(self.max_abs, m.max(err[finite_err]))
            rel_mask = finite_err & (ref != 0)
            if m.count(rel_mask):
                self.max_rel = max(self.max_rel, m.max(err[rel_mask] / abs(ref[rel_mask])))
            self.err_sq += m.sum(err[finite_err] ** 2)
            self.ref_sq += m.sum(ref[finite_err] ** 2)
            self.add_accuracy(m, values[finite_err], ref[finite_err], err[finite_err], p)
        bad = ~ok
        n_bad = m.count(bad)
        if n_bad:
            self.violations += n_bad
            self.nonfinite += m.count(bad & ~m.isfinite(values) & m.isfinite(ref))
            for i in m.first_true(bad, max(0, MAX_MISMATCHES - len(self.mismatches))):
                v, e = m.item(values, i), m.item(ref, i)
                entry = {"tensor": name, "index": first + i, "coords": unravel(first + i, p["shape"]),
                         "value": finite_or_none(v), "expected": finite_or_none(e)}
                if not math.isfinite(v):
                    entry["value_text"] = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
                self.mismatches.append(entry)
        self.checked += int(ref.shape[0])


    def add_accuracy(self, m, values, ref, err, p):
        """The share of the tolerance used and, for 16-bit outputs, the errors in ULPs."""
        tol = p["tolerance"]
        self.tolerance_use = max(self.tolerance_use, m.max(err / (tol["atol"] + tol["rtol"] * abs(ref))))
        if p["dtype"] == "float32":
            return
        ulps = err / m.ulp_at(ref, p["dtype"])
        self.max_ulp = max(self.max_ulp, m.max(ulps))
        self.ulp_counted += int(ref.shape[0])
        self.exactly_rounded += m.count(values == m.rounded(ref, p["dtype"]))
        counts = m.bin_counts(m.floor_clamped(ulps * BINS_PER_ULP, ULP_BINS), ULP_BINS + 1)
        self.ulp_bins = [a + b for a, b in zip(self.ulp_bins, counts)]

    def accuracy(self, name):
        """As normbench's report writes it: {tensor, tolerance_use, ulp}."""
        ulp = None
        if self.ulp_counted:
            target, cumulative, p999 = math.ceil(0.999 * self.ulp_counted), 0, float(ULP_CAP)
            for i, count in enumerate(self.ulp_bins[:ULP_BINS]):
                cumulative += count
                if cumulative >= target:
                    p999 = min((i + 1) / BINS_PER_ULP, self.max_ulp)
                    break
            ulp = {"max": self.max_ulp, "p999": p999,
                   "exactly_rounded": self.exactly_rounded / self.ulp_counted}
        return {"tensor": name, "tolerance_use": self.tolerance_use, "ulp": ulp}


def worst_accuracy(trials):
    """Per output, the worst over the trials (as normbench's verification writes it)."""
    worst = {}
    for t in trials:
        for a in t.get("accuracy", []):
            w = worst.setdefault(a["tensor"], {"tensor": a["tensor"], "tolerance_use": 0.0, "ulp": None})
            w["tolerance_use"] = max(w["tolerance_use"], a["tolerance_use"])
            if a["ulp"]:
                u = w["ulp"] or dict(a["ulp"])
                w["ulp"] = {"max": max(u["max"], a["ulp"]["max"]), "p999": max(u["p999"], a["ulp"]["p999"]),
                            "exactly_rounded": min(u["exactly_rounded"], a["ulp"]["exactly_rounded"])}
    return list(worst.values())


def violation_text(name, t, tol, prefixed):
    """As normbench's reasons: "3 of 32 elements outside |y - ref| <= 1e-05 + 1e-05 * |ref|";
    a problem with two outputs names the tensor first ("s: 3 of 32 ...")."""
    return "%s%d of %d elements outside |%s - ref| <= %r + %r * |ref|%s" % (
        name + ": " if prefixed else "", t.violations, t.checked, name, tol["atol"], tol["rtol"],
        " (%d NaN/Inf)" % t.nonfinite if t.nonfinite else "")


def trial_record(p, tallies, trial, seed):
    """(the trial's record as normbench writes it, why it failed or None), over every output."""
    outputs = p["outputs"]
    parts = [tallies[n] for n in outputs]
    err_sq, ref_sq = sum(t.err_sq for t in parts), sum(t.ref_sq for t in parts)
    violations = sum(t.violations for t in parts)
    passed = violations == 0 and all(t.checked == p["num_elements"] for t in parts)
    record = {"trial": trial, "seed": seed, "passed": passed,
              "checked": sum(t.checked for t in parts), "violations": violations,
              "nonfinite": sum(t.nonfinite for t in parts),
              "max_abs_error": finite_or_none(max(t.max_abs for t in parts)),
              "max_rel_error": finite_or_none(max(t.max_rel for t in parts)),
              "rel_l2_error": math.sqrt(err_sq) / math.sqrt(ref_sq) if ref_sq > 0 else None,
              "inputs_unchanged": True,
              "first_mismatches": [e for t in parts for e in t.mismatches],
              "accuracy": [tallies[n].accuracy(n) for n in outputs]}
    why = None
    if violations:
        why = "; ".join(violation_text(n, tallies[n], p["tolerance"], len(outputs) > 1)
                        for n in outputs if tallies[n].violations)
    elif not passed:
        why = "%d of %d elements checked" % (record["checked"], p["num_elements"] * len(outputs))
    return record, why


def verify(torch, p, inputs, outputs, trial, seed):
    """Every output of one call ({name: tensor of x's logical shape}) against the reference of
    `inputs` ({name: tensor}); returns (record, why it failed or None)."""
    m = TorchMath(torch)
    readers = {n: logical_reader(outputs[n]) for n in p["outputs"]}
    tallies = {n: Tally() for n in p["outputs"]}
    for first, count, refs in reference_slabs(torch, p, inputs):
        for n in p["outputs"]:
            tallies[n].add(m, n, m.f64(readers[n](first, count)), refs[n], first, p)
    return trial_record(p, tallies, trial, seed)


def verify_arrays(p, inputs, outputs, trial=0, seed=0):
    """verify() on NumPy arrays of the logical shapes (inputs hold the dtype's values as
    float32), in one slab."""
    m = NumpyMath(p["dtype"])
    rows = lambda a: a.reshape(p["num_segments"], p["segment_size"])  # noqa: E731
    refs = expected_rows(m, p, rows(inputs["x"]),
                         rows(inputs["residual"]) if "residual" in inputs else None,
                         inputs.get("weight"), inputs.get("bias"))
    tallies = {n: Tally() for n in p["outputs"]}
    for n in p["outputs"]:
        tallies[n].add(m, n, m.f64(outputs[n]).reshape(-1), refs[n], 0, p)
    return trial_record(p, tallies, trial, seed)


def failure_summary(record, why):
    """The reason of a failed trial: "trial 0: 3 of 32 elements outside ..."."""
    if not record["inputs_unchanged"]:
        return "trial %d: modified its inputs" % record["trial"]
    return "trial %d: %s" % (record["trial"], why)
