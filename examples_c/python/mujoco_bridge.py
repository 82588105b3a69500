"""MuJoCo glue for the contact solvers: one contact step of a MuJoCo model in this library's tree
(block) form and dense form, and stepping MuJoCo with the solver's next velocities.

Conventions (those of ``tests/data/README.md``):

* trees are MuJoCo's kinematic trees (``tree_dofadr``, ``tree_dofnum``), contiguous dof ranges in
  order; ``M`` is block diagonal by tree (``mj_fullM``), one dense block per tree;
* per contact, one or two trees (the other side static: ``tree_b = -1``) and a 3×n_tree Jacobian
  block per tree, rows (normal, tangent 1, tangent 2) of MuJoCo's ``contact.frame`` applied to
  ``J_body2 − J_body1`` at ``contact.pos`` (``mj_jac``): the normal component is **positive when
  the bodies separate**, and a normal impulse λn >= 0 applied as Jᵀλ pushes them apart;
* ``phi`` is ``contact.dist`` (m, negative: penetration), ``mu`` is ``contact.friction[0]``;
* ``v0 = qvel``, ``tau = qfrc_smooth`` (applied + passive + actuation − bias), ``dt`` the model's
  time step, so that ``p* = M v0 + dt·tau``.

Use::

    step = contact_step(model, data)          # after mj_forward-like stages (done here)
    M, Jn, Jt, p_star = step.dense()          # the dense form (TAMSI's layout: Jt rows c0t1, c0t2, ...)
    ...solve for the next velocities v...
    advance(model, data, v)                   # qvel = v, qpos += dt·v (mj_integratePos), time += dt

Only MuJoCo's own Python package (``pip install mujoco``) and numpy are needed. The TAMSI engine
example reuses this module.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import mujoco


@dataclasses.dataclass
class Contact:
    """One contact: its trees and 3×ndofs Jacobian blocks (rows normal, t1, t2)."""

    tree_a: int
    tree_b: int  # -1: the other side is static
    mu: float
    phi: float  # signed distance (m), < 0: penetration
    Ja: np.ndarray  # 3 × ndofs(tree_a)
    Jb: np.ndarray | None  # 3 × ndofs(tree_b), None when tree_b = -1
    pos: np.ndarray  # contact point (world, m)
    frame: np.ndarray  # 3×3, rows normal, t1, t2 (world)
    con_index: int = -1  # its index in MuJoCo's contact list (data.contact), for ids across steps


@dataclasses.dataclass
class ContactStep:
    """One contact step of a MuJoCo state in tree (block) form."""

    dt: float
    nv: int
    trees: list  # (first dof, ndofs) per tree, contiguous and in order
    M_blocks: list  # dense ndofs × ndofs block of M per tree
    v0: np.ndarray  # qvel (nv)
    tau: np.ndarray  # qfrc_smooth (nv)
    contacts: list  # Contact
    Mv0: np.ndarray  # M v0 (nv), MuJoCo's own product (mj_mulM)

    @property
    def nc(self) -> int:
        return len(self.contacts)

    @property
    def p_star(self) -> np.ndarray:
        """``M v0 + dt·tau``, with M v0 from ``mj_mulM`` (a fixed order of operations, so that the C
        bridge ``mujoco_bridge.c`` gives the same bits; a BLAS product's order is its own)."""
        return self.Mv0 + self.dt * self.tau

    def M(self) -> np.ndarray:
        """The dense mass matrix (nv×nv)."""
        m = np.zeros((self.nv, self.nv))
        for (first, n), b in zip(self.trees, self.M_blocks):
            m[first:first + n, first:first + n] = b
        return m

    def jacobian(self) -> np.ndarray:
        """The dense contact Jacobian (3nc×nv), rows normal, t1, t2 per contact."""
        j = np.zeros((3 * self.nc, self.nv))
        for i, c in enumerate(self.contacts):
            fa, na = self.trees[c.tree_a]
            j[3 * i:3 * i + 3, fa:fa + na] = c.Ja
            if c.tree_b >= 0:
                fb, nb = self.trees[c.tree_b]
                j[3 * i:3 * i + 3, fb:fb + nb] = c.Jb
        return j

    def dense(self):
        """``(M, Jn, Jt, p_star)``: nv×nv, nc×nv, 2nc×nv (rows c0t1, c0t2, c1t1, …), nv."""
        j = self.jacobian()
        jn = j[0::3].copy()
        jt = np.zeros((2 * self.nc, self.nv))
        jt[0::2] = j[1::3]
        jt[1::2] = j[2::3]
        return self.M(), jn, jt, self.p_star

    def phi(self) -> np.ndarray:
        return np.array([c.phi for c in self.contacts])

    def mu(self) -> np.ndarray:
        return np.array([c.mu for c in self.contacts])



def box_layers(n_boxes: int, seed: int, half: float, mass: str, drop: float, gap: float,
               per_side: int) -> str:
    """MuJoCo ``<body>`` elements of ``n_boxes`` free cubes of half size ``half`` (m) and mass
    ``mass`` (kg, as written in the XML) in layers of a ``per_side`` × ``per_side`` grid, 0.22 m
    apart with ±5 mm jitter in position and ±0.1 rad in yaw; the lowest layer ``drop`` m above the
    floor, each layer ``gap`` m above the one below. The pile of ``mujoco_pile.py`` and of
    ``tools/make_engine_scenes.py`` (one layout, so their scenes are the same drops)."""
    rng = np.random.default_rng(seed)
    bodies = []
    for i in range(n_boxes):
        layer, k = divmod(i, per_side * per_side)
        row, col = divmod(k, per_side)
        x = (col - (per_side - 1) / 2) * 0.22 + rng.uniform(-0.005, 0.005)
        y = (row - (per_side - 1) / 2) * 0.22 + rng.uniform(-0.005, 0.005)
        z = half + drop + layer * (2 * half + gap)
        yaw = rng.uniform(-0.1, 0.1)
        bodies.append(
            f'<body pos="{x:.6f} {y:.6f} {z:.6f}" euler="0 0 {yaw:.6f}"><freejoint/>'
            f'<geom type="box" size="{half} {half} {half}" mass="{mass}"/></body>'
        )
    return "".join(bodies)

def trees(model) -> list:
    """MuJoCo's kinematic trees as (first dof, ndofs), checked contiguous and in order."""
    out = []
    nxt = 0
    for t in range(model.ntree):
        first, n = int(model.tree_dofadr[t]), int(model.tree_dofnum[t])
        if n == 0:
            continue
        if first != nxt:
            raise ValueError(f"tree {t}: dofs start at {first}, expected {nxt}")
        out.append((first, n))
        nxt += n
    if nxt != model.nv:
        raise ValueError(f"trees cover {nxt} of {model.nv} dofs")
    return out


def contact_step(model, data) -> ContactStep:
    """Runs MuJoCo's position, velocity, actuation and acceleration stages on ``data`` (no
    constraint solve) and returns the contact step of that state."""
    mujoco.mj_fwdPosition(model, data)
    mujoco.mj_fwdVelocity(model, data)
    mujoco.mj_fwdActuation(model, data)
    mujoco.mj_fwdAcceleration(model, data)
    nv = model.nv
    tr = trees(model)
    tree_of_dof = np.empty(nv, dtype=int)
    for k, (first, n) in enumerate(tr):
        tree_of_dof[first:first + n] = k
    full = np.zeros((nv, nv))
    mujoco.mj_fullM(model, data, full)
    blocks = [full[f:f + n, f:f + n].copy() for f, n in tr]
    jacp = np.zeros((3, nv))
    jacr = np.zeros((3, nv))
    contacts = []
    for i in range(data.ncon):
        con = data.contact[i]
        b1 = int(model.geom_bodyid[con.geom1])
        b2 = int(model.geom_bodyid[con.geom2])
        jrel = np.zeros((3, nv))
        for body, sign in ((b2, 1.0), (b1, -1.0)):
            if body == 0:
                continue
            mujoco.mj_jac(model, data, jacp, jacr, con.pos, body)
            jrel += sign * jacp
        frame = np.array(con.frame).reshape(3, 3)
        # frame @ jrel, written out: ((f0·j0) + (f1·j1)) + (f2·j2) per entry, the order the C
        # bridge (mujoco_bridge.c) uses, so both give the same bits (BLAS would choose its own).
        j = frame[:, 0:1] * jrel[0] + frame[:, 1:2] * jrel[1] + frame[:, 2:3] * jrel[2]
        touched = sorted({int(tree_of_dof[c]) for c in np.nonzero(np.any(j != 0.0, axis=0))[0]})
        if not touched:
            continue  # both sides static
        if len(touched) > 2:
            raise ValueError(f"contact {i} touches trees {touched}")
        ta = touched[0]
        tb = touched[1] if len(touched) == 2 else -1
        fa, na = tr[ta]
        jb = None
        if tb >= 0:
            fb, nb = tr[tb]
            jb = j[:, fb:fb + nb].copy()
        contacts.append(Contact(ta, tb, float(con.friction[0]), float(con.dist), j[:, fa:fa + na].copy(), jb,
                                np.array(con.pos), frame, i))
    v0 = np.array(data.qvel)
    mv0 = np.zeros(nv)
    mujoco.mj_mulM(model, data, mv0, v0)
    return ContactStep(float(model.opt.timestep), nv, tr, blocks, v0, np.array(data.qfrc_smooth), contacts, mv0)


def advance(model, data, v_next) -> None:
    """Steps MuJoCo with the solver's next velocities: ``qvel = v_next``, positions integrated
    over one time step (``mj_integratePos``, quaternions included), time advanced."""
    data.qvel[:] = v_next
    mujoco.mj_integratePos(model, data.qpos, data.qvel, model.opt.timestep)
    data.time += model.opt.timestep


def energy(model, data) -> float:
    """Kinetic plus gravitational potential energy (J) of ``data``'s state."""
    mujoco.mj_fwdPosition(model, data)
    full = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, full)
    kinetic = 0.5 * data.qvel @ full @ data.qvel
    g = np.array(model.opt.gravity)
    potential = -float(np.sum(model.body_mass[:, None] * data.xipos * g[None, :]))
    return float(kinetic + potential)
