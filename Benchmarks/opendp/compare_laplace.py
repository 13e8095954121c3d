#!/usr/bin/env python3
"""Side-by-side check of HealthTrail's discrete Laplace sampler against OpenDP's.

Draws N samples of integer Laplace noise at scale t from OpenDP (make_laplace on an integer
domain, which OpenDP samples exactly with the CKS20 discrete Laplace sampler), reads N samples
produced by HealthTrail (a file of integers, one per line, or the output of a command), and runs:

  * a two-sample chi-square test of homogeneity on binned counts (one bin per value where the
    pooled expected count per sample is >= 5, tails pooled);
  * a two-sample Kolmogorov-Smirnov test (scipy.stats.ks_2samp; on integer data, with many
    ties, it is conservative: the reported p-value is larger than the exact one);
  * for each sample, a one-sample chi-square goodness of fit against the exact PMF
    P(x) = (1-q)/(1+q) q^|x|, q = exp(-1/t), and its variance against 2q/(1-q)^2.

Exits 1 if any p-value is below --alpha (default 1e-6), else 0.

Examples:
  python3 compare_laplace.py --scale 3 --swift-samples samples.txt
  python3 compare_laplace.py --scale 3/1 -n 100000 \\
      --swift-command 'healthtrail dp-sample --mechanism laplace --scale 3/1 --count {n}'
"""
import argparse
import math
import shlex
import subprocess
import sys
from fractions import Fraction

import numpy as np
from scipy import stats


def opendp_samples(scale: Fraction, n: int) -> np.ndarray:
    import opendp.prelude as dp
    dp.enable_features("contrib")
    # An integer atom domain makes OpenDP add discrete Laplace noise (exact, CKS20).
    # OpenDP takes the scale as a float and converts that float exactly to a rational.
    meas = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=float(scale))
    return np.asarray(meas([0] * n), dtype=np.int64)


def read_integers(path: str) -> np.ndarray:
    handle = sys.stdin if path == "-" else open(path)
    with handle:
        return np.asarray([int(line) for line in handle if line.strip()], dtype=np.int64)


def command_samples(template: str, n: int) -> np.ndarray:
    out = subprocess.run(shlex.split(template.format(n=n)), check=True, capture_output=True, text=True).stdout
    return np.asarray([int(line) for line in out.split()], dtype=np.int64)


def pmf(scale: Fraction):
    t = float(scale)
    q = math.exp(-1 / t)
    c = -math.expm1(-1 / t) / (1 + q)
    return (lambda x: c * np.exp(-np.abs(x) / t)), 2 * q / (-math.expm1(-1 / t)) ** 2


def bins_for(n: int, p) -> int:
    """Largest m with n*P(m) >= 5."""
    m = 0
    while n * p(m + 1) >= 5:
        m += 1
    return m


def binned(samples: np.ndarray, m: int) -> np.ndarray:
    clipped = np.clip(samples, -m - 1, m + 1) + m + 1
    return np.bincount(clipped, minlength=2 * m + 3).astype(float)


def merge_small(expected: np.ndarray, *observed: np.ndarray):
    """Merges a pooled tail whose expectation is below 5 into its neighbour."""
    exp = list(expected)
    obs = [list(o) for o in observed]
    if exp[0] < 5:
        exp[1] += exp.pop(0)
        for o in obs:
            o[1] += o.pop(0)
    if exp[-1] < 5:
        exp[-2] += exp.pop()
        for o in obs:
            o[-2] += o.pop()
    return np.asarray(exp), [np.asarray(o) for o in obs]


def goodness_of_fit(samples: np.ndarray, scale: Fraction):
    p, variance = pmf(scale)
    n = len(samples)
    m = bins_for(n, p)
    inside = n * p(np.arange(-m, m + 1))
    tail = (n - inside.sum()) / 2
    expected, (observed,) = merge_small(np.concatenate([[tail], inside, [tail]]), binned(samples, m))
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    df = len(expected) - 1
    x = samples.astype(float)
    m2, m4 = (x ** 2).mean(), (x ** 4).mean()
    z = (m2 - variance) / math.sqrt((m4 - m2 ** 2) / n)
    return chi2, df, stats.chi2.sf(chi2, df), z, 2 * stats.norm.sf(abs(z))


def two_sample_chi2(a: np.ndarray, b: np.ndarray, scale: Fraction):
    p, _ = pmf(scale)
    m = bins_for(min(len(a), len(b)), p)
    table = np.vstack([binned(a, m), binned(b, m)])
    # Pool sparse outer bins (both samples) until every expected cell count is >= 5.
    while table.shape[1] > 2:
        expected = stats.contingency.expected_freq(table)
        if expected[:, 0].min() >= 5 and expected[:, -1].min() >= 5:
            break
        if expected[:, 0].min() < 5:
            table[:, 1] += table[:, 0]
            table = table[:, 1:]
        if table.shape[1] > 2 and stats.contingency.expected_freq(table)[:, -1].min() < 5:
            table[:, -2] += table[:, -1]
            table = table[:, :-1]
    chi2, pvalue, df, _ = stats.chi2_contingency(table, correction=False)
    return chi2, df, pvalue


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", required=True, help="Laplace scale t as a fraction or decimal: 3, 3/1, 0.5, 10/3")
    parser.add_argument("-n", type=int, default=100_000, help="OpenDP samples (and {n} in --swift-command)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--swift-samples", help="file of HealthTrail samples, one integer per line ('-' = stdin)")
    source.add_argument("--swift-command", help="command printing HealthTrail samples; {n} is replaced by -n")
    parser.add_argument("--alpha", type=float, default=1e-6, help="fail (exit 1) if any p-value is below this")
    args = parser.parse_args()

    scale = Fraction(args.scale)
    if float(scale) != scale:
        print(f"note: OpenDP receives the scale as the float {float(scale)!r}, not exactly {scale}")
    swift = read_integers(args.swift_samples) if args.swift_samples else command_samples(args.swift_command, args.n)
    import opendp
    opendp_version = getattr(opendp, "__version__", None)
    if opendp_version is None:
        from importlib.metadata import version
        opendp_version = version("opendp")
    ref = opendp_samples(scale, args.n)

    print(f"discrete Laplace, scale t = {scale}; OpenDP {opendp_version}; "
          f"HealthTrail N = {len(swift)}, OpenDP N = {len(ref)}")
    _, variance = pmf(scale)
    for name, s in [("HealthTrail", swift), ("OpenDP", ref)]:
        print(f"  {name:11s} mean {s.mean():+.4f}  variance {s.var():.4f} (exact {variance:.4f})  "
              f"min {s.min()} max {s.max()}")
    pvalues = {}
    chi2, df, p = two_sample_chi2(swift, ref, scale)
    pvalues["two-sample chi-square"] = p
    print(f"two-sample chi-square (homogeneity): chi2 = {chi2:.2f}, df = {df}, p = {p:.3g}")
    ks = stats.ks_2samp(swift, ref)
    pvalues["two-sample KS"] = ks.pvalue
    print(f"two-sample Kolmogorov-Smirnov: D = {ks.statistic:.5f}, p = {ks.pvalue:.3g} (conservative on integers)")
    for name, s in [("HealthTrail", swift), ("OpenDP", ref)]:
        chi2, df, p, z, pz = goodness_of_fit(s, scale)
        pvalues[f"{name} vs exact PMF"] = p
        pvalues[f"{name} variance"] = pz
        print(f"{name} vs exact PMF: chi2 = {chi2:.2f}, df = {df}, p = {p:.3g}; variance z = {z:+.2f} (p = {pz:.3g})")
    failed = [k for k, v in pvalues.items() if v < args.alpha]
    print("RESULT:", "FAIL " + ", ".join(failed) if failed else f"ok (all p-values >= {args.alpha:g})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
