"""A Bayer–Groth verifier's equations in one weighted sum (p2php/crypto/bayer_groth/equations.py).

The batch must accept exactly what checking each equation accepts (up to the ``E/q`` chance the module states):
one failing equation among holding ones, two failures that cancel in a plain sum, and failures a prover could tune
once it knew the weight are all refused, while derived commitments kept as forms cost no product of their own.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("coincurve")

from secp_counting import counted_products  # noqa: E402

from p2php import tags  # noqa: E402
from p2php.crypto import secp256k1  # noqa: E402
from p2php.crypto.bayer_groth.commitments import commit  # noqa: E402
from p2php.crypto.bayer_groth.equations import Equations, Form, minus_ones  # noqa: E402
from p2php.crypto.secp256k1 import Q, base_mul, generator, lincomb  # noqa: E402

G = generator()
P = base_mul(7)
R = base_mul(11)


def _value(form: Form) -> secp256k1.Point:
    return lincomb(list(form.terms), list(form.terms.values()))


def test_forms_are_the_linear_combinations_they_stand_for() -> None:
    f = Form.of((P, R), (3, 5))
    assert _value(f) == P * 3 + R * 5
    assert _value(f * 2) == P * 6 + R * 10
    nested = Form.of((f, P, G), (2, 1, Q - 1))
    assert _value(nested) == P * 7 + R * 10 - G
    assert _value(minus_ones(4)) == commit([Q - 1] * 4, 0)
    assert minus_ones(4) is minus_ones(4)  # cached, and never changed by use
    Form.of((minus_ones(4),), (5,))
    assert _value(minus_ones(4)) == commit([Q - 1] * 4, 0)


@pytest.mark.parametrize("seed", [None, b"seed"])
def test_holding_equations_hold(seed: bytes | None) -> None:
    eq = Equations(seed)
    eq.require((P, R), (1, 1), base=-18)  # 7 + 11 = 18
    eq.require((Form.of((P,), (2,)), G), (3, 1), base=-43)  # 42 + 1
    eq.require((), (), base=0)
    assert eq.hold()


@pytest.mark.parametrize("seed", [None, b"seed", b"other"])
@pytest.mark.parametrize("bad", [0, 1, 2])
def test_one_failing_equation_fails_the_batch(seed: bytes | None, bad: int) -> None:
    eq = Equations(seed)
    for i in range(3):
        eq.require((P, R), (1, 1), base=-18 + (i == bad))
    assert not eq.hold()


@pytest.mark.parametrize("seed", [b"seed", b"another seed"])
def test_failures_that_cancel_in_a_plain_sum_are_refused(seed: bytes) -> None:
    eq = Equations(seed)
    eq.require((P,), (1,), base=-7 + 1)  # off by +G
    eq.require((P,), (1,), base=-7 - 1)  # off by −G: a plain sum would hold
    assert not eq.hold()


def test_errors_tuned_to_the_weight_of_another_seed_fail() -> None:
    # e_0 + ρ·e_1 = O for the ρ of seed A: the batch under A holds (which is why the seed must bind the whole
    # proof, responses included), and under any other seed it does not.
    rho = secp256k1.hash_to_scalar(tags.VERIFIED_BG_BATCH, b"A")
    tuned = Equations(b"A")
    tuned.require((G,), (rho,))
    tuned.require((G,), (Q - 1,))
    assert tuned.hold()
    other = Equations(b"B")
    other.require((G,), (rho,))
    other.require((G,), (Q - 1,))
    assert not other.hold()
    each = Equations()
    each.require((G,), (rho,))
    each.require((G,), (Q - 1,))
    assert not each.hold()


def test_a_batch_multiplies_each_distinct_point_once() -> None:
    with counted_products() as calls:
        eq = Equations(b"seed")
        for _ in range(5):
            eq.require((P, R, Form.of((P, R), (2, 3))), (1, 1, 1), base=-(7 * 3 + 11 * 4))
        assert eq.hold()
    assert calls[0] == 2  # P and R, once each, for five equations and their forms


@settings(max_examples=25, deadline=None)
@given(errors=st.lists(st.integers(-3, 3), min_size=1, max_size=6), seed=st.binary(min_size=1, max_size=8))
def test_property_the_batch_holds_exactly_when_every_equation_does(errors: list[int], seed: bytes) -> None:
    eq = Equations(seed)
    for e in errors:
        eq.require((P,), (1,), base=-7 + e)
    assert eq.hold() == all(e == 0 for e in errors)
