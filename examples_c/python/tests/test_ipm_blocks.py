"""Block-sparse interior point from Python (``IpmSolver.set_block_problem_data``): two boxes (one
sliding on the ground, one resting on it) and a 1-dof tree without contact, given densely and in
blocks at default parameters, take the same iterations and agree to 1e-12; the physics (friction
of both contacts on the sliding box, the free tree's v0 + h tau / M) holds to the interior
point's stopping accuracy; packed and list-of-blocks inputs give the same bits; bad data raises
with the library's status and keeps the previous data."""

import numpy as np
import pytest

import contact_solvers as cts

S = cts.Status
H = 1e-3
SOC = cts.IpmContactModel.kSecondOrderCone


def two_boxes():
    """Boxes of 0.2 m and 1 kg (trees 0, 1: 6 dofs each) and a 2 kg slider (tree 2, 1 dof, no
    contact). Contact 0: box 0 on the ground; contact 1: box 1 on box 0. Rows: normal z,
    tangent 1 x, tangent 2 y; lever arms from the box centres to the contact points."""
    inertia = 0.2 * 0.2 / 6.0
    box_M = np.diag([1.0, 1.0, 1.0, inertia, inertia, inertia])
    M_list = [box_M, box_M.copy(), np.array([[2.0]])]

    def block(sign, arm):  # 3x6: point velocity of a box at (0, 0, arm) from its centre
        j = np.zeros((3, 6))
        j[0, 2] = j[1, 0] = j[2, 1] = sign
        j[1, 4] = sign * arm  # (w x r)_x = r_z w_y
        j[2, 3] = -sign * arm  # (w x r)_y = -r_z w_x
        return j

    J_list = [block(1.0, -0.1), block(1.0, -0.1), block(-1.0, 0.1)]
    contact_trees = np.array([[0, -1], [1, 0]], dtype=np.int32)
    nv, nc = 13, 2
    M = np.zeros((nv, nv), order="F")
    M[0:6, 0:6], M[6:12, 6:12], M[12, 12] = box_M, box_M, 2.0
    J = np.zeros((3 * nc, nv))
    J[0:3, 0:6] = J_list[0]
    J[3:6, 6:12] = J_list[1]
    J[3:6, 0:6] = J_list[2]
    v0 = np.zeros(nv)
    v0[0], v0[12] = 0.5, 0.25
    tau = np.zeros(nv)
    tau[2] = tau[8] = -9.81
    tau[12] = 1.0
    return dict(
        tree_dofs=np.array([6, 6, 1], dtype=np.int32),
        M_list=M_list,
        M_packed=np.concatenate([m.ravel(order="F") for m in M_list]),
        contact_trees=contact_trees,
        J_list=J_list,
        J_packed=np.concatenate([j.ravel(order="F") for j in J_list]),
        M=M,
        Jn=np.asfortranarray(J[0::3]),
        Jt=np.asfortranarray(np.stack([J[1::3], J[2::3]], axis=1).reshape(2 * nc, nv)),
        v0=v0,
        tau=tau,
        phi=np.zeros(nc),
        mu=np.full(nc, 0.5),
        models=np.array([SOC, SOC], dtype=np.int32),
    )


def set_blocks(solver, p, packed=True, **overrides):
    q = dict(p, **overrides)
    solver.set_block_problem_data(
        q["tree_dofs"], q["M_packed"] if packed else q["M_list"], q["contact_trees"],
        q["J_packed"] if packed else q["J_list"], q["v0"], q["tau"], H, q["phi"], q["mu"],
        q["models"],
    )


def test_block_equals_dense_on_two_boxes(lib):
    p = two_boxes()
    dense = cts.IpmSolver(lib)
    dense.set_problem_data(p["M"], p["Jn"], p["Jt"], p["v0"], p["tau"], H, p["phi"], p["mu"],
                           p["models"])
    blocks = cts.IpmSolver(lib)
    set_blocks(blocks, p)
    assert (blocks.num_velocities, blocks.num_contacts) == (13, 2)
    assert dense.solve() == cts.IpmOutcome.kConverged
    assert blocks.solve() == cts.IpmOutcome.kConverged
    assert blocks.get_stats().iterations == dense.get_stats().iterations > 0
    v = blocks.get_generalized_velocities()
    imp = blocks.get_impulses()
    np.testing.assert_allclose(v, dense.get_generalized_velocities(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(imp, dense.get_impulses(), rtol=0, atol=1e-12)
    # Physics to 1e-5 (m/s, N·s): the default stop is a scaled complementarity of 1e-6, so
    # the normal impulses exceed the weights by a few 1e-6 N·s.
    assert abs(v[0] - (0.5 - 0.5 * 3.0 * 9.81 * H)) < 1e-5  # both frictions slow box 0
    assert abs(imp[0] - 2.0 * 9.81 * H) < 1e-5  # the ground carries both weights
    assert abs(imp[1] + 0.5 * imp[0]) < 1e-8  # sliding: friction at the cone edge
    assert v[12] == 0.25 + H * 1.0 / 2.0  # no contact: exactly v0 + h tau / M

    # The list-of-blocks input: the same bits.
    again = cts.IpmSolver(lib)
    set_blocks(again, p, packed=False)
    assert again.solve() == cts.IpmOutcome.kConverged
    assert np.array_equal(again.get_generalized_velocities(), v)


@pytest.mark.parametrize(
    "overrides, status, text",
    [
        (dict(contact_trees=np.array([[0, -1], [3, 0]], dtype=np.int32)), S.INVALID_ARGUMENT,
         "contact_trees"),
        (dict(v0=np.zeros(12)), S.DIMENSION_MISMATCH, "v0"),
        (dict(mu=np.full(1, 0.5)), S.DIMENSION_MISMATCH, "mu"),
        (dict(models=np.array([SOC], dtype=np.int32)), S.DIMENSION_MISMATCH, "models"),
        (dict(models=np.array([SOC, 7], dtype=np.int32)), S.INVALID_ARGUMENT, "models[1]"),
        (dict(phi=np.array([0.0, np.nan])), S.INVALID_ARGUMENT, "phi"),
        (dict(tree_dofs=np.array([6, 6, 0], dtype=np.int32)), S.INVALID_ARGUMENT, "tree_dofs"),
    ],
)
def test_bad_block_data_raises_and_keeps_the_data(lib, overrides, status, text):
    p = two_boxes()
    s = cts.IpmSolver(lib)
    set_blocks(s, p)
    s.solve()
    v = s.get_generalized_velocities()
    with pytest.raises(cts.ContactSolversError) as e:
        set_blocks(s, p, **overrides)
    assert e.value.status == status and text in str(e.value)
    assert (s.num_velocities, s.num_contacts) == (13, 2)
    assert s.solve() == cts.IpmOutcome.kConverged
    assert np.array_equal(s.get_generalized_velocities(), v)
