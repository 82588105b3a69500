"""Drake 1.51.1's TamsiSolver on Drake's test scenes: inputs and reference values, quoted from
docs/tamsi_cases.md (§2 pizza saver, §3 rolling cylinder), and the scene builders."""

import math

import numpy as np

# Drake's kTolerance in tamsi_solver_test.cc: 10·eps.
K_TOL = 10 * np.finfo(np.float64).eps

# -- Pizza saver (§2): one-way coupled, nv = 3, nc = 3, theta = pi/5 ---------------------------

PIZZA_SMALL_MOMENT = dict(
    Mz=3.0,
    iterations=4,
    residuals=[5.1958926280752276e-07, 1.1127960070407821e-07, 5.6217785618702043e-09,
               1.4421571455019692e-11],
    v=[1.6e-23, 9.7e-24, 3.6748636983595802e-07],
    vt=[-3.841278551076122e-08, -3.6547324105126324e-07, 3.3571550390920833e-07,
        1.4947017244318954e-07, -2.9730271839844711e-07, 2.1600306860807366e-07],
    vn=[0.0, 0.0, 0.0],
    fn=[10 / 3, 10 / 3, 10 / 3],
    ft=[0.10451565899373869, 0.99440007083967719, -0.91343355236907531,
        -0.40668681963798931, 0.80891789337533648, -0.58771325120168794],
    tau_f=[-1.1e-16, -1.1e-16, -2.9996325132835278],
    J_diag=[7244.8521922154487, 7244.8521922154478, 6326.1363016404166],
)

PIZZA_LARGE_MOMENT = dict(
    Mz=6.0,
    iterations=5,
    residuals=[1.0391785256150455e-06, 7.7896188078425793e-07, 0.0017301579144217098,
               7.4752740812706438e-08, 1.19e-19],
    v=[-3.5e-21, 5.0e-20, 0.0010000000000000256],
    vt=[-0.00010452846326765609, -0.00099452189536829876, 0.0009135454576426243,
        0.00040673664307581064, -0.00080901699437496818, 0.00058778525229248818],
    vn=[0.0, 0.0, 0.0],
    fn=[10 / 3, 10 / 3, 10 / 3],
    ft=[0.1742141054460882, 1.6575364922804476, -1.5225757627376606, -0.67789440512633037,
        1.3483616572915724, -0.97964208715411716],
    tau_f=[0.0, 1.1e-16, -4.9999999999999751],
    J_diag=[3.4999999999999485, 3.499999999999948, 1.0000000000000493],
)

PIZZA_NO_CONTACT_V = [0.0, 0.0, 0.0060000000000000001]


def pizza_saver(Mz, theta=math.pi / 5, dt=1e-3):
    """M, Jn, Jt, p_star, fn, mu of the pizza saver (§2.1), as numpy's default C-order arrays."""
    m, g, R = 1.0, 10.0, 1.0
    c, s = math.cos(theta), math.sin(theta)
    R_WB = np.array([[c, s], [-s, c]])
    legs = [np.array([-math.sqrt(3) / 2, -0.5]), np.array([math.sqrt(3) / 2, -0.5]),
            np.array([0.0, 1.0])]
    Jt = np.zeros((6, 3))
    for i, leg in enumerate(legs):
        px, py = R * (R_WB @ leg)
        Jt[2 * i:2 * i + 2] = [[1, 0, -py], [0, 1, px]]
    M = np.eye(3)
    Jn = np.zeros((3, 3))
    p_star = M @ np.zeros(3) + dt * np.array([0.0, 0.0, Mz])
    fn = np.full(3, m * g / 3)
    mu = np.full(3, 0.5)
    return M, Jn, Jt, p_star, fn, mu


# -- Rolling cylinder (§3): two-way coupled, nv = 3 ---------------------------------------------

STICTION = {
    1: dict(iterations=8,
            v=[0.25000029405060681, 0.0019943295852104109, -0.24999970594939319],
            fn=3010.9943295852108, ft0=-249.99966554106297,
            tau_f=[-249.99966554106297, 0.0, -249.99966554106297],
            residuals=[0.34483656353839842, 0.16467275087714314, 1.4616256129493873e-10,
                       5.7126223710111256e-10, 5.5471350688227736e-09, 6.4103197805555122e-08,
                       1.7367121475852824e-08, 3.6633449252925874e-10]),
    4: dict(iterations=10,
            v=[0.25000029405114066, 0.0019882909485522348, -0.24999970594885937],
            fn=752.7470727371383, ft0=-62.499857247424607,
            tau_f=[-249.99942898969843, 0.0, -249.99942898969843],
            residuals=[0.62791595611708395, 0.31116874569731851, 0.15362768401463758,
                       1.6982024916536919e-10, 5.1574692994840004e-10, 2.049613893779957e-09,
                       1.2965794737905724e-08, 1.0295910492391753e-07, 5.5626308581024881e-08,
                       1.9181731255664967e-09]),
    16: dict(iterations=12,
             v=[0.2500002940557996, 0.0019637869781177738, -0.2499997059442004],
             fn=188.1852366861323, ft0=-15.624981603341778,
             tau_f=[-249.99970565346845, 0.0, -249.99970565346845],
             residuals=[1.2201790749199051, 0.60636447152814721, 0.30293228279503354,
                        1.2036278223901493e-10, 3.6774420812648746e-10, 1.2589506645291502e-09,
                        4.8016029118449027e-09, 2.1267236449007368e-08, 1.115790933556561e-07,
                        1.9283994488459794e-07, 2.0088424140490258e-08,
                        1.2303767449622912e-10]),
    64: dict(iterations=14,
             v=[0.25000029407305446, 0.0018607067640692776, -0.24999970592694556],
             fn=47.044698543188602, ft0=-3.90624540512693,
             tau_f=[-249.99970592812326, 0.0, -249.99970592812326],
             residuals=[2.421837310398383, 1.2037038823979853, 0.60182238781724673,
                        6.6826670111194239e-11, 2.0704437453480147e-10, 7.0779897693428924e-10,
                        2.5912797451908456e-09, 9.8855650156048932e-09, 3.8412436636455686e-08,
                        1.436858086052453e-07, 3.457368339497535e-07, 1.5856762986082823e-07,
                        5.3033490619425946e-09, 4.2985206959345064e-12]),
    256: dict(iterations=15,
              v=[0.25000029414650393, 0.0014220802731051429, -0.24999970585349607],
              fn=11.759461251067213, ft0=-0.97656135067251326,
              tau_f=[-249.99970577216303, 0.0, -249.99970577216303],
              residuals=[4.8343238335158407, 2.402759679112398, 1.2013754292852477,
                         3.4348162280626201e-11, 1.0690126512669777e-10, 3.6657893266254388e-10,
                         1.3435606686178717e-09, 5.1174391602866326e-09, 1.9776595488764251e-08,
                         7.4951508915884891e-08, 2.5337225897286529e-07, 5.6823294422831316e-07,
                         4.3941657414708501e-07, 4.9718969791994364e-08,
                         2.5044583803730976e-10]),
}

STICTION_J = {
    1: [[248045.97833295623, -248.84055604999674, 248044.97833295623],
        [0.0, 2998.0340224887377, 0.0],
        [248044.97833295623, -248.84055604999674, 248045.97833295623]],
    4: [[248044.83792094336, -248.11406614075287, 248043.83792094336],
        [0.0, 2989.2810172347463, 0.0],
        [248043.83792094336, -248.11406614075287, 248044.83792094336]],
}

SLIDING = dict(
    iterations=8,
    residuals=[0.34483656353910791, 0.16467275088357411, 0.070388716414639299,
               0.020266532242870585, 0.0020140104079915092, 2.0290369010289556e-05,
               2.0598452002087442e-09, 8.79e-17],
    v=[0.39890056704148047, 0.0019943295852104109, -0.30109943295851949],
    vn=[0.0019943295852104109],
    vt=[0.097801134082960983, 0.0],
    fn=[3010.9943295852108],
    ft=[-301.09943295851951, 0.0],
    tau_f=[-301.09943295851951, 0.0, -301.09943295851951],
    tau=[-301.09943295851951, 3010.9943295852108, -301.09943295851951],
    J=[[1.0000000000000322, -299.70340224887224, 3e-14],
       [0.0, 2998.0340224887377, 0.0],
       [3e-14, -299.70340224887224, 1.0000000000000322]],
)


def rolling_cylinder(vx0, nc, dt=1e-3):
    """M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu and v0 of the cylinder (§3.1)."""
    m, R, g, inertia, mu = 1.0, 1.0, 9.0, 1.0, 0.1
    delta, x_ini, h0 = 1e-6, 1e-3, 0.5
    k = m * g / delta
    omega_n = math.sqrt(k / m)
    d = 1.0 * (1.0 / omega_n) / delta
    M = np.diag([m, m, inertia])
    Jn = np.tile([0.0, 1.0, 0.0], (nc, 1))
    Jt = np.tile([[1.0, 0.0, R], [0.0, 0.0, 0.0]], (nc, 1))
    v0 = np.array([vx0, -math.sqrt(2 * g * h0), 0.0])
    p_star = M @ v0 + dt * np.array([0.0, -m * g, 0.0])
    fn0 = np.full(nc, k * x_ini / nc)
    return dict(M=M, Jn=Jn, Jt=Jt, p_star=p_star, fn0=fn0, stiffness=np.full(nc, k),
                dissipation=np.full(nc, d), mu=np.full(nc, mu), v0=v0)


# -- Comparisons (§ "How to read this file") -----------------------------------------------------


def assert_close(what, got, want, tol=1e-12):
    """|a − b| ≤ tol·max(1, |b|) for every entry."""
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    bad = np.abs(got - want) > tol * np.maximum(1.0, np.abs(want))
    assert not bad.any(), f"{what}: got {got[bad]}, want {want[bad]} (tol {tol})"


def assert_abs(what, got, want, tol):
    """Drake's CompareMatrices, absolute mode."""
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs {want.shape}"
    bad = np.abs(got - want) > tol
    assert not bad.any(), f"{what}: got {got[bad]}, want {want[bad]} (abs tol {tol})"


def assert_residuals(got, want):
    """Entries above 1e-12·scale agree to 1e-6 relative; the round-off ones absolutely."""
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"residual history: {got} vs {want}"
    floor = 1e-12 * np.max(np.abs(want))
    for k, (a, b) in enumerate(zip(got, want)):
        if abs(b) > floor:
            assert abs(a - b) <= 1e-6 * abs(b), f"residual[{k}]: {a} vs {b}"
        else:
            assert abs(a - b) <= floor, f"residual[{k}] (round-off): {a} vs {b}"


def assert_jacobian(got, want):
    """The Newton Jacobian against Drake's: 1e-12 relative, and Drake's own absolute tolerance
    rows·‖J‖_F·eps for the round-off entries (e.g. the ~1e-13 off-diagonals of the pizza saver)."""
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"J: shape {got.shape} vs {want.shape}"
    floor = want.shape[0] * np.linalg.norm(want) * np.finfo(float).eps
    tol = np.maximum(1e-12 * np.maximum(1.0, np.abs(want)), floor)
    bad = np.abs(got - want) > tol
    assert not bad.any(), f"J: got {got[bad]}, want {want[bad]}"
