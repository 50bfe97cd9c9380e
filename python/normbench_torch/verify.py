"""Verification against a float64 reference, as normbench's (app/check/verify.cpp,
reference/): two-pass mean and biased variance, rstd = 1 / sqrt(var + eps), exact erf GELU,
computed with torch on the GPU a slab at a time; an element passes when
|y - ref| <= atol + rtol * |ref| (NaN and Inf only where the reference has the same)."""

import math

from .generator import MASK64
from .inputs import CHUNK


def fingerprint(torch, tensor):
    """A wrapping sum of (index-weighted) bits: equal data, equal fingerprint."""
    if tensor is None:
        return 0
    flat, total = tensor.view(-1).view(torch.int32), 0
    for first in range(0, flat.numel(), CHUNK):
        bits = flat[first:first + CHUNK].to(torch.int64)
        weights = 2 * torch.arange(first, first + bits.numel(), dtype=torch.int64, device=bits.device) + 1
        total = (total + int((bits * weights).sum())) & MASK64
    return total


def reference_slabs(torch, p, x, w, b):
    """(first, float64 reference of the elements from `first`), a slab of segments at a time."""
    eps, seg = p["eps"], p["segment_size"]
    per_slab = max(1, CHUNK // seg)
    if p["op"] == "group_norm":
        n, c, groups = p["shape"][0], p["channels"], p["groups"]
        rows = x.view(n * groups, seg)
        per_slab = max(groups, per_slab // groups * groups)  # whole samples, for the affine step
    else:
        rows = x.view(p["num_segments"], seg)
    for s0 in range(0, rows.shape[0], per_slab):
        xd = rows[s0:s0 + per_slab].to(torch.float64)
        mean = xd.mean(dim=1, keepdim=True)
        var = ((xd - mean) ** 2).mean(dim=1, keepdim=True)
        y = (xd - mean) * (1.0 / torch.sqrt(var + eps))
        if p["affine"]:
            if p["op"] == "group_norm":
                shape = (y.shape[0] // groups, c, p["spatial"])
                y = (y.view(shape) * w.to(torch.float64).view(1, c, 1) + b.to(torch.float64).view(1, c, 1))
            else:
                y = y * w.to(torch.float64).view(1, seg) + b.to(torch.float64).view(1, seg)
        if p["op"] == "layer_norm_gelu_scale":
            y = 0.5 * y * (1.0 + torch.erf(y * 0.7071067811865476)) * p["scale"]
        yield s0 * seg, y.reshape(-1)


def unravel(index, shape):
    coords = []
    for d in reversed(shape):
        coords.append(index % d)
        index //= d
    return coords[::-1]


def finite_or_none(v):
    return v if v is not None and math.isfinite(v) else None


def verify(torch, p, x, w, b, y, trial, seed):
    """The trial's verification record, as normbench writes it (app/check/verify.cpp)."""
    tol = p["tolerance"]
    flat_y = y.reshape(-1)
    checked = violations = nonfinite = 0
    max_abs = max_rel = err_sq = ref_sq = 0.0
    mismatches = []
    for first, ref in reference_slabs(torch, p, x, w, b):
        yd = flat_y[first:first + ref.numel()].to(torch.float64)
        err = (yd - ref).abs()
        both_finite = torch.isfinite(yd) & torch.isfinite(ref)
        ok = torch.where(both_finite, err <= tol["atol"] + tol["rtol"] * ref.abs(),
                         (torch.isnan(yd) & torch.isnan(ref)) | (yd == ref))
        finite_err = torch.isfinite(err)
        if bool(finite_err.any()):
            max_abs = max(max_abs, float(err[finite_err].max()))
            rel_mask = finite_err & (ref != 0)
            if bool(rel_mask.any()):
                max_rel = max(max_rel, float((err[rel_mask] / ref[rel_mask].abs()).max()))
            err_sq += float((err[finite_err] ** 2).sum())
            ref_sq += float((ref[finite_err] ** 2).sum())
        bad = ~ok
        n_bad = int(bad.sum())
        if n_bad:
            violations += n_bad
            nonfinite += int((bad & ~torch.isfinite(yd) & torch.isfinite(ref)).sum())
            for i in torch.nonzero(bad).view(-1)[: max(0, 10 - len(mismatches))].tolist():
                v, e = float(yd[i]), float(ref[i])
                m = {"index": first + i, "coords": unravel(first + i, p["shape"]),
                     "value": finite_or_none(v), "expected": finite_or_none(e)}
                if not math.isfinite(v):
                    m["value_text"] = "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
                mismatches.append(m)
        checked += ref.numel()
    passed = violations == 0 and checked == p["num_elements"]
    return {"trial": trial, "seed": seed, "passed": passed, "checked": checked,
            "violations": violations, "nonfinite": nonfinite,
            "max_abs_error": finite_or_none(max_abs), "max_rel_error": finite_or_none(max_rel),
            "rel_l2_error": math.sqrt(err_sq) / math.sqrt(ref_sq) if ref_sq > 0 else None,
            "inputs_unchanged": True, "first_mismatches": mismatches}


def failure_summary(t, tol):
    """As normbench's reasons: "trial 0: 3 of 32 elements outside |y - ref| <= ..."."""
    if not t["inputs_unchanged"]:
        return "trial %d: modified its inputs" % t["trial"]
    return "trial %d: %s" % (t["trial"], violation_summary(t, tol))


def violation_summary(t, tol):
    return "%d of %d elements outside |y - ref| <= %r + %r * |ref|%s" % (
        t["violations"], t["checked"], tol["atol"], tol["rtol"],
        " (%d NaN/Inf)" % t["nonfinite"] if t["nonfinite"] else "")
