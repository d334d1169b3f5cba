"""The prover's diagonals by evaluation and interpolation (p2php/crypto/bayer_groth/diagonals.py) equal the direct sums.

The proof's bytes depend on these points, so any difference would change every proof: the known-answer vectors of
B.11 catch that for two shapes; here every ``m`` the shuffle can choose, odd and even, is compared point by point,
with zero exponents and with ciphertext rows whose partial sums are the identity (a previous seat controls the deck a
prover re-masks; the identity must be computed, never refused).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("coincurve")

from p2php.crypto.bayer_groth import diagonals  # noqa: E402
from p2php.crypto.bayer_groth.diagonals import INTERPOLATE_FROM, diagonal_terms  # noqa: E402
from p2php.crypto.bayer_groth.shuffle import MAX_M  # noqa: E402
from p2php.crypto.elgamal import Ciphertext  # noqa: E402
from p2php.crypto.secp256k1 import Point, Q, base_mul, lincomb, random_scalar  # noqa: E402
from p2php.rng import DetRng  # noqa: E402


def _summed(terms: list[diagonals.DiagonalTerms]) -> list[tuple[Point, Point]]:
    return [(lincomb(a, w), lincomb(b, w)) for a, b, w in terms]


def _table(m: int, n: int, seed: bytes) -> tuple[list[list[Ciphertext]], list[list[int]]]:
    rng = DetRng(seed)
    rows = [[Ciphertext(base_mul(random_scalar(rng)), base_mul(random_scalar(rng))) for _ in range(n)]
            for _ in range(m)]
    a_all = [[random_scalar(rng) for _ in range(n)] for _ in range(m + 1)]
    return rows, a_all


@pytest.mark.parametrize("m", range(INTERPOLATE_FROM, MAX_M + 1))
@pytest.mark.parametrize("n", [1, 2, 5])
def test_interpolated_diagonals_equal_the_direct_sums(m: int, n: int) -> None:
    rows, a_all = _table(m, n, b"diag %d %d" % (m, n))
    interpolated = diagonal_terms(rows, a_all)
    direct = diagonals._direct(rows, a_all)
    assert len(interpolated) == len(direct) == 2 * m - 1
    assert _summed(interpolated) == _summed(direct)


def test_identity_partial_sums_and_zero_exponents_are_computed_not_refused() -> None:
    # B(1) of the first column is C_1 + C_2 + C_3 + C_4 = O; a whole exponent row is zero.
    m, n = 4, 3
    rows, a_all = _table(m, n, b"identity")
    c = rows[0][0]
    rows[1][0] = Ciphertext(-c.a, -c.b)
    d = rows[2][0]
    rows[3][0] = Ciphertext(-d.a, -d.b)
    rows[2][1] = rows[0][1]  # B(−1) of the second column: C_1 − C_3 (odd powers) can cancel too
    a_all[2] = [0] * n
    a_all[0][1] = Q - 1
    assert _summed(diagonal_terms(rows, a_all)) == _summed(diagonals._direct(rows, a_all))


def test_small_shapes_are_summed_directly() -> None:
    for m in range(1, INTERPOLATE_FROM):
        rows, a_all = _table(m, 2, b"small %d" % m)
        assert diagonal_terms(rows, a_all) == diagonals._direct(rows, a_all)


def test_the_interpolation_weights_invert_the_vandermonde_matrix() -> None:
    for m in range(INTERPOLATE_FROM, MAX_M + 1):
        nodes = diagonals._nodes(m)
        inverse, tops = diagonals._interpolation(m)
        size = 2 * m - 1
        assert len(nodes) == len(set(nodes)) == size
        for k in range(size):
            for j in range(size):
                entry = sum(inverse[k][r] * pow(t, j, Q) for r, t in enumerate(nodes)) % Q
                assert entry == int(k == j)
            # x^{2m−1} at the nodes, mapped back, is what D_{2m−1}'s weight cancels
            assert (tops[k] + sum(inverse[k][r] * pow(t, size, Q) for r, t in enumerate(nodes))) % Q == 0


@settings(max_examples=15, deadline=None)
@given(m=st.integers(INTERPOLATE_FROM, MAX_M), n=st.integers(1, 4), seed=st.binary(min_size=1, max_size=8))
def test_property_any_table_gives_the_direct_diagonals(m: int, n: int, seed: bytes) -> None:
    rows, a_all = _table(m, n, seed)
    assert _summed(diagonal_terms(rows, a_all)) == _summed(diagonals._direct(rows, a_all))
