// SPDX-License-Identifier: MIT OR Apache-2.0
// The scenes of docs/bullet.md (issue 32) in Bullet, with every solver: one world per (scene,
// solver, dt). Shared by the example (bullet_scenes.cpp) and the tests (tests/c/bullet_*.cpp).
#ifndef CTS_BULLET_SCENES_HPP
#define CTS_BULLET_SCENES_HPP

#include <btBulletDynamicsCommon.h>

#include <BulletDynamics/MLCPSolvers/btDantzigSolver.h>
#include <BulletDynamics/MLCPSolvers/btMLCPSolver.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "contact_solvers_bullet.hpp"

namespace scenes {

enum class Solver { kSequentialImpulse, kDantzig, kBaraffMlcp, kLemkeMlcp, kTamsi, kInteriorPoint };

constexpr Solver kAllSolvers[] = {Solver::kSequentialImpulse, Solver::kDantzig,  Solver::kBaraffMlcp,
                                  Solver::kLemkeMlcp,         Solver::kTamsi,    Solver::kInteriorPoint};

inline const char* name(Solver s) {
  switch (s) {
    case Solver::kSequentialImpulse: return "bullet SI";
    case Solver::kDantzig: return "bullet MLCP+Dantzig";
    case Solver::kBaraffMlcp: return "MLCP+cts Baraff";
    case Solver::kLemkeMlcp: return "MLCP+cts Lemke";
    case Solver::kTamsi: return "cts TAMSI";
    case Solver::kInteriorPoint: return "cts interior point";
  }
  return "?";
}

constexpr double kG = 9.81;

/**
 * One Bullet world with the chosen solver; owns its shapes and bodies. `mlcp_override` replaces
 * the MLCP solver of btMLCPSolver (the tests' recorder), `solver_override` the whole constraint
 * solver (not owned; the tests' allocation counter).
 */
class World {
 public:
  explicit World(Solver s, btMLCPSolverInterface* mlcp_override = nullptr,
                 btConstraintSolver* solver_override = nullptr)
      : kind_(s) {
    config_.reset(new btDefaultCollisionConfiguration());
    dispatcher_.reset(new btCollisionDispatcher(config_.get()));
    broadphase_.reset(new btDbvtBroadphase());
    switch (s) {
      case Solver::kSequentialImpulse:
        solver_.reset(new btSequentialImpulseConstraintSolver());
        break;
      case Solver::kDantzig:
        mlcp_.reset(new btDantzigSolver());
        break;
      case Solver::kBaraffMlcp:
        mlcp_.reset(new cts::bullet::BaraffMlcpSolver());
        break;
      case Solver::kLemkeMlcp:
        mlcp_.reset(new cts::bullet::LemkeMlcpSolver());
        break;
      case Solver::kTamsi:
        solver_.reset(new cts::bullet::ContactSolver(cts::bullet::Method::kTamsi));
        break;
      case Solver::kInteriorPoint:
        solver_.reset(new cts::bullet::ContactSolver(cts::bullet::Method::kInteriorPoint));
        break;
    }
    if (mlcp_ || mlcp_override != nullptr) {
      mlcp_solver_ = new btMLCPSolver(mlcp_override != nullptr ? mlcp_override : mlcp_.get());
      solver_.reset(mlcp_solver_);
    }
    active_ = solver_override != nullptr ? solver_override : solver_.get();
    if (solver_override != nullptr) mlcp_solver_ = dynamic_cast<btMLCPSolver*>(solver_override);
    world_.reset(new btDiscreteDynamicsWorld(dispatcher_.get(), broadphase_.get(), active_, config_.get()));
    world_->setGravity(btVector3(0, btScalar(-kG), 0));
  }

  ~World() {
    for (auto& b : bodies_) world_->removeRigidBody(b.get());
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /**
   * The ground: a static 40 m × 1 m × 40 m box, friction 1, whose top face passes through the
   * origin, tilted by `tilt` (rad) about z (its top face's normal (−sin, cos, 0)). A box rather
   * than a btStaticPlaneShape: Bullet's box–plane pair finds one new point per step, so a box
   * resting on a plane rocks while its manifold fills; box–box (btBoxBoxDetector) finds all four.
   */
  btRigidBody* AddGround(double tilt = 0.0) {
    btTransform x;
    x.setIdentity();
    x.setRotation(btQuaternion(btVector3(0, 0, 1), btScalar(tilt)));
    x.setOrigin(btVector3(btScalar(std::sin(tilt)), btScalar(-std::cos(tilt)), 0) * btScalar(0.5));
    return Add(new btBoxShape(btVector3(20, 0.5f, 20)), 0.0, x, 1.0);
  }
  /** A box of half extents h (m), mass m (kg), friction mu (combined with the ground's 1). */
  btRigidBody* AddBox(const btVector3& h, double m, const btTransform& x, double mu) {
    return Add(new btBoxShape(h), m, x, mu);
  }
  btRigidBody* AddSphere(double r, double m, const btTransform& x, double mu) {
    return Add(new btSphereShape(btScalar(r)), m, x, mu);
  }

  /**
   * One step of dt (s), no substeps; returns its CPU time (s): std::clock, the process's CPU time,
   * which is this thread's (Bullet and the solvers run single-threaded here), so the figure does
   * not count the time other processes on a loaded machine take.
   */
  double Step(double dt) {
    const std::clock_t t0 = std::clock();
    world_->stepSimulation(btScalar(dt), 0, btScalar(dt));
    const std::clock_t t1 = std::clock();
    ++steps_;
    const double s = double(t1 - t0) / double(CLOCKS_PER_SEC);
    seconds_ += s;
    return s;
  }

  /** Deepest penetration among the current contact points (m, >= 0). */
  double Penetration() const {
    double worst = 0.0;
    const int nm = dispatcher_->getNumManifolds();
    for (int i = 0; i < nm; ++i) {
      const btPersistentManifold* m = dispatcher_->getManifoldByIndexInternal(i);
      for (int k = 0; k < m->getNumContacts(); ++k) worst = std::max(worst, -double(m->getContactPoint(k).getDistance()));
    }
    return worst;
  }

  /** Kinetic plus gravitational energy of the dynamic bodies (J). */
  double Energy() const {
    double e = 0.0;
    for (const auto& b : bodies_) {
      if (b->getInvMass() == 0) continue;
      const double m = 1.0 / double(b->getInvMass());
      const btVector3 v = b->getLinearVelocity(), w = b->getAngularVelocity();
      const btVector3 Iw = b->getInvInertiaTensorWorld().inverse() * w;
      e += 0.5 * m * double(v.length2()) + 0.5 * double(w.dot(Iw)) + m * kG * double(b->getCenterOfMassPosition().y());
    }
    return e;
  }

  /** MLCP fallbacks (btMLCPSolver) or delegated groups (ContactSolver) so far. */
  long Fallbacks() const {
    if (mlcp_solver_ != nullptr) return mlcp_solver_->getNumFallbacks();
    if (auto* cs = dynamic_cast<cts::bullet::ContactSolver*>(active_)) {
      return cs->counters().delegated_failures + cs->counters().delegated_joints;
    }
    return 0;
  }

  double seconds() const { return seconds_; }
  long steps() const { return steps_; }
  btDiscreteDynamicsWorld& world() { return *world_; }
  btConstraintSolver& solver() { return *active_; }
  Solver kind() const { return kind_; }

 private:
  btRigidBody* Add(btCollisionShape* shape, double m, const btTransform& x, double mu) {
    shapes_.emplace_back(shape);
    btVector3 inertia(0, 0, 0);
    if (m > 0) shape->calculateLocalInertia(btScalar(m), inertia);
    states_.emplace_back(new btDefaultMotionState(x));
    btRigidBody::btRigidBodyConstructionInfo ci(btScalar(m), states_.back().get(), shape, inertia);
    ci.m_friction = btScalar(mu);
    bodies_.emplace_back(new btRigidBody(ci));
    btRigidBody* b = bodies_.back().get();
    b->setActivationState(DISABLE_DEACTIVATION);  // measure the solver, not Bullet's sleeping
    world_->addRigidBody(b);
    return b;
  }

  Solver kind_;
  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btMLCPSolverInterface> mlcp_;
  btMLCPSolver* mlcp_solver_{nullptr};
  std::unique_ptr<btConstraintSolver> solver_;
  btConstraintSolver* active_{nullptr};
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btDefaultMotionState>> states_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  double seconds_{0.0};
  long steps_{0};
};

/** What a scene run measured. */
struct Result {
  double ms_per_step{0};
  /** The scene's own figure (see Scene::metric_name) and whether it passes the scene's check. */
  double metric{0};
  double penetration{0};   // deepest penetration over the last 0.5 s of the run (m): contact at rest
  double energy_gain{0};   // max over the run of E(t) − E(0) (J), pile only
  long fallbacks{0};
  bool exploded{false};
};

// ---------------------------------------------------------------------------------------------
// Slope: a 0.2 m, 1 kg box at rest on a plane inclined by theta, combined friction mu. Returns the
// acceleration along the slope (m/s², downhill positive) measured over [0.25 s, 1.25 s].
// ---------------------------------------------------------------------------------------------
constexpr double kSlopeTheta = 0.3490658503988659;  // 20°

inline Result Slope(Solver s, double dt, double mu, btMLCPSolverInterface* mlcp = nullptr) {
  // Bullet drops a manifold point once the bodies have slid gContactBreakingThreshold (0.02 m by
  // default) past it; on a sliding box that leaves a step with two or three points every few
  // centimetres and the box rocks, whatever the solver. 0.1 m keeps the four points refreshed.
  struct Threshold {
    btScalar saved = gContactBreakingThreshold;
    Threshold() { gContactBreakingThreshold = btScalar(0.1); }
    ~Threshold() { gContactBreakingThreshold = saved; }
  } threshold;
  World w(s, mlcp);
  // Bullet's solvers push a resting box out to distance 0 exactly, where its box–box detector
  // finds no overlap the next step: the box drops for a step now and then. A slop of 0.1 mm (left
  // uncorrected, btContactSolverInfo::m_linearSlop) keeps it in contact. The library's
  // ContactSolver does not read it (its contacts stay slightly compliant).
  w.world().getSolverInfo().m_linearSlop = btScalar(1e-4);
  const double th = kSlopeTheta;
  const btVector3 n(btScalar(-std::sin(th)), btScalar(std::cos(th)), 0);  // the surface rises along +x
  const btVector3 downhill(btScalar(-std::cos(th)), btScalar(-std::sin(th)), 0);
  w.AddGround(th);
  btTransform x;
  x.setIdentity();
  x.setRotation(btQuaternion(btVector3(0, 0, 1), btScalar(th)));
  x.setOrigin(n * btScalar(0.1));
  btRigidBody* box = w.AddBox(btVector3(0.1f, 0.1f, 0.1f), 1.0, x, mu);
  Result r;
  const int n0 = int(std::lround(0.25 / dt)), n1 = int(std::lround(1.25 / dt));
  double v0 = 0;
  for (int k = 1; k <= n1; ++k) {
    w.Step(dt);
    if ((n1 - k) * dt <= 0.5) r.penetration = std::max(r.penetration, w.Penetration());
    if (k == n0) v0 = double(box->getLinearVelocity().dot(downhill));
  }
  const double v1 = double(box->getLinearVelocity().dot(downhill));
  r.metric = (v1 - v0) / (double(n1 - n0) * dt);
  r.ms_per_step = 1e3 * w.seconds() / double(w.steps());
  r.fallbacks = w.Fallbacks();
  r.exploded = !std::isfinite(r.metric);
  return r;
}

/** a = g (sin θ − μ cos θ), or 0 when it sticks. */
inline double SlopeExpected(double mu) {
  return std::max(0.0, kG * (std::sin(kSlopeTheta) - mu * std::cos(kSlopeTheta)));
}

// ---------------------------------------------------------------------------------------------
// Stack: ten 0.2 m, 1 kg boxes (μ = 0.5) on the ground, T seconds. Metric: the top box's drift
// (m), the distance of its centre from where it started.
// ---------------------------------------------------------------------------------------------
inline Result Stack(Solver s, double dt, double T = 10.0, btMLCPSolverInterface* mlcp = nullptr,
                    btConstraintSolver* solver = nullptr) {
  World w(s, mlcp, solver);
  w.AddGround();
  btRigidBody* top = nullptr;
  for (int i = 0; i < 10; ++i) {
    btTransform x;
    x.setIdentity();
    x.setOrigin(btVector3(0, btScalar(0.1 + 0.2 * i), 0));
    top = w.AddBox(btVector3(0.1f, 0.1f, 0.1f), 1.0, x, 0.5);
  }
  const btVector3 start = top->getCenterOfMassPosition();
  Result r;
  const int n = int(std::lround(T / dt));
  for (int k = 0; k < n; ++k) {
    w.Step(dt);
    if ((n - 1 - k) * dt <= 0.5) r.penetration = std::max(r.penetration, w.Penetration());
  }
  r.metric = double((top->getCenterOfMassPosition() - start).length());
  r.exploded = !std::isfinite(r.metric) || r.metric > 1.0;
  r.ms_per_step = 1e3 * w.seconds() / double(w.steps());
  r.fallbacks = w.Fallbacks();
  return r;
}

// ---------------------------------------------------------------------------------------------
// Pile: 50 boxes (0.2 m, 1 kg, μ = 0.5) dropped from a 5×5×2 lattice with small tilts into a
// heap, T seconds. Metric: the kinetic energy at the end (J); energy_gain: the largest rise of
// the total energy above its starting value.
// ---------------------------------------------------------------------------------------------
inline Result Pile(Solver s, double dt, double T = 2.0, btMLCPSolverInterface* mlcp = nullptr,
                   btConstraintSolver* solver = nullptr) {
  World w(s, mlcp, solver);
  w.AddGround();
  std::vector<btRigidBody*> boxes;
  for (int l = 0; l < 2; ++l) {
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) {
        const int k = 25 * l + 5 * i + j;
        btTransform x;
        x.setIdentity();
        // Deterministic tilts and offsets so that the boxes tumble onto each other.
        x.setRotation(btQuaternion(btVector3(btScalar(1 + k % 3), btScalar(1 + k % 5), btScalar(1 + k % 7)).normalized(),
                                   btScalar(0.3 + 0.1 * (k % 4))));
        // 0.3 m apart (a tilted 0.2 m box spans at most 0.35 m diagonally: no overlap at rest),
        // the second layer 0.4 m above the first, each box a little higher than the last.
        x.setOrigin(btVector3(btScalar(0.3 * (i - 2) + 0.02 * (k % 3)), btScalar(0.25 + 0.4 * l + 0.01 * k),
                              btScalar(0.3 * (j - 2) - 0.02 * (k % 2))));
        boxes.push_back(w.AddBox(btVector3(0.1f, 0.1f, 0.1f), 1.0, x, 0.5));
      }
    }
  }
  Result r;
  const double e0 = w.Energy();
  const int n = int(std::lround(T / dt));
  for (int k = 0; k < n; ++k) {
    w.Step(dt);
    if ((n - 1 - k) * dt <= 0.5) r.penetration = std::max(r.penetration, w.Penetration());
    r.energy_gain = std::max(r.energy_gain, w.Energy() - e0);
  }
  double ke = 0;
  for (btRigidBody* b : boxes) ke += 0.5 * double(b->getLinearVelocity().length2()) / double(b->getInvMass());
  r.metric = ke;
  r.exploded = !std::isfinite(ke) || ke > 100.0;
  r.ms_per_step = 1e3 * w.seconds() / double(w.steps());
  r.fallbacks = w.Fallbacks();
  return r;
}

// ---------------------------------------------------------------------------------------------
// Sphere: r = 0.1 m, 1 kg, μ = 0.5, launched at 2 m/s without spin; it slides, then rolls at
// 5/7 · 2 m/s. Metric: the relative error of the speed after 2 s.
// ---------------------------------------------------------------------------------------------
inline Result Sphere(Solver s, double dt, double T = 2.0) {
  World w(s);
  w.AddGround();
  btTransform x;
  x.setIdentity();
  x.setOrigin(btVector3(0, 0.1f, 0));
  btRigidBody* ball = w.AddSphere(0.1, 1.0, x, 0.5);
  ball->setLinearVelocity(btVector3(2, 0, 0));
  Result r;
  const int n = int(std::lround(T / dt));
  for (int k = 0; k < n; ++k) {
    w.Step(dt);
    if ((n - 1 - k) * dt <= 0.5) r.penetration = std::max(r.penetration, w.Penetration());
  }
  r.metric = std::fabs(double(ball->getLinearVelocity().x()) / (2.0 * 5.0 / 7.0) - 1.0);
  r.exploded = !std::isfinite(r.metric);
  r.ms_per_step = 1e3 * w.seconds() / double(w.steps());
  r.fallbacks = w.Fallbacks();
  return r;
}

}  // namespace scenes

#endif  // CTS_BULLET_SCENES_HPP
