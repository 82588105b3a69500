// SPDX-License-Identifier: MIT OR Apache-2.0
// No allocation per step once grown (issue 32, docs/bullet.md §5): the adapters of
// include/contact_solvers_bullet.hpp driven by the real Bullet, with every heap allocation of the
// process counted while one of the adapters' calls runs (btMLCPSolverInterface::solveMLCP of the
// MLCP adapters, btConstraintSolver::solveGroup of ContactSolver). Each scene is run twice with the
// same adapter object: the first run grows its buffers (and the library's workspaces) to the
// scene's largest problem, the second, the same deterministic scene again, must allocate nothing.
//
// Two counters: operator new, the adapter's own C++ code (std::vector, std::string; the library
// is Rust and Bullet allocates through btAlignedAlloc, i.e. malloc), asserted to be 0; and malloc
// itself, everything in the call (the adapter, the library behind the C ABI, Bullet's solver when
// a group is handed to it), reported. malloc is replaced by forwarding to glibc's __libc_* entry
// points (this program is built for glibc, without sanitizers). Run by tests/c_abi/bullet.rs;
// ends with "N failures".
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "scenes.hpp"

// ---- Counting allocator ----------------------------------------------------------------------

namespace {
bool g_counting = false;  // single-threaded program: set only around an adapter call
long g_news = 0, g_mallocs = 0;
}  // namespace

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) noexcept {
  if (g_counting) ++g_mallocs;
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) noexcept {
  if (g_counting) ++g_mallocs;
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) noexcept {
  if (g_counting) ++g_mallocs;
  return __libc_realloc(p, n);
}
void free(void* p) noexcept { __libc_free(p); }
void* memalign(std::size_t a, std::size_t n) noexcept {
  if (g_counting) ++g_mallocs;
  return __libc_memalign(a, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) noexcept {
  if (g_counting) ++g_mallocs;
  return __libc_memalign(a, n);
}
int posix_memalign(void** p, std::size_t a, std::size_t n) noexcept {
  if (g_counting) ++g_mallocs;
  *p = __libc_memalign(a, n);
  return *p != nullptr ? 0 : ENOMEM;
}
}

void* operator new(std::size_t n) {
  if (g_counting) ++g_news;
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_news;
  return std::malloc(n != 0 ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (g_counting) ++g_news;
  if (void* p = __libc_memalign(static_cast<std::size_t>(a), n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

int failures = 0;

void check(bool ok, const std::string& what, double value, double limit) {
  std::printf("%s %s: %.6g (limit %.6g)\n", ok ? "ok  " : "FAIL", what.c_str(), value, limit);
  if (!ok) ++failures;
}

/** Counts around an adapter call; `on` is false during the warm-up run. */
struct Window {
  bool on{false};
  long calls{0};
  template <typename F>
  auto operator()(F&& f) {
    struct Guard {
      bool was;
      ~Guard() { g_counting = was; }
    } guard{g_counting};
    g_counting = on;
    if (on) ++calls;
    return f();
  }
};

/** An MLCP adapter behind btMLCPSolver, counted. */
class CountedMlcp : public btMLCPSolverInterface {
 public:
  explicit CountedMlcp(btMLCPSolverInterface& inner) : inner_(inner) {}
  bool solveMLCP(const btMatrixXu& A, const btVectorXu& b, btVectorXu& x, const btVectorXu& lo, const btVectorXu& hi,
                 const btAlignedObjectArray<int>& dep, int numIterations, bool useSparsity) override {
    return window([&] { return inner_.solveMLCP(A, b, x, lo, hi, dep, numIterations, useSparsity); });
  }
  Window window;

 private:
  btMLCPSolverInterface& inner_;
};

/** ContactSolver, counted. */
class CountedContactSolver : public cts::bullet::ContactSolver {
 public:
  explicit CountedContactSolver(cts::bullet::Method m) : ContactSolver(m) {}
  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifolds, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override {
    return window([&] {
      return ContactSolver::solveGroup(bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info,
                                       debugDrawer, dispatcher);
    });
  }
  Window window;
};

enum class Scene { kStack, kPile };

/** Runs `scene` twice through `run` (warm-up, then counted) and checks the counted run. */
template <typename Run>
void Twice(const std::string& what, Window& window, Run&& run) {
  window.on = false;
  run();
  g_news = g_mallocs = 0;
  window.on = true;
  window.calls = 0;
  const scenes::Result r = run();
  window.on = false;
  std::printf("info %s: %ld adapter calls counted, %ld fallbacks\n", what.c_str(), window.calls, r.fallbacks);
  check(window.calls > 0, what + ": adapter calls counted", double(window.calls), 1);
  check(g_news == 0, what + ": operator new calls in the adapter (second run)", double(g_news), 0);
  // The library behind the C ABI still allocates when the contact structure changes (its sparse
  // symbolic analysis) and when it formats an error message (docs/bullet.md §5): reported, not
  // asserted; the adapter's own code is.
  std::printf("info %s: malloc calls in the whole call, library included (second run): %ld\n", what.c_str(),
              g_mallocs);
}

scenes::Result RunMlcp(Scene scene, double dt, double T, btMLCPSolverInterface* mlcp) {
  return scene == Scene::kStack ? scenes::Stack(scenes::Solver::kDantzig, dt, T, mlcp)
                                : scenes::Pile(scenes::Solver::kDantzig, dt, T, mlcp);
}

scenes::Result RunSolver(Scene scene, double dt, double T, btConstraintSolver* solver) {
  return scene == Scene::kStack ? scenes::Stack(scenes::Solver::kSequentialImpulse, dt, T, nullptr, solver)
                                : scenes::Pile(scenes::Solver::kSequentialImpulse, dt, T, nullptr, solver);
}

}  // namespace

int main() {
  // The counter works.
  g_counting = true;
  void* volatile probe = std::malloc(16);
  std::free(probe);
  int* volatile probe_new = new int(1);
  delete probe_new;
  g_counting = false;
  check(g_mallocs >= 2 && g_news == 1, "the counters see malloc and operator new", double(g_news), 1);

  struct Case {
    const char* name;
    Scene scene;
    double dt, T;
  };
  {
    cts::bullet::BaraffMlcpSolver baraff;
    CountedMlcp counted(baraff);
    for (const Case& c : {Case{"Baraff adapter, stack 1/240 s", Scene::kStack, 1.0 / 240.0, 1.0},
                          Case{"Baraff adapter, pile 1/60 s", Scene::kPile, 1.0 / 60.0, 0.5}}) {
      Twice(c.name, counted.window, [&] { return RunMlcp(c.scene, c.dt, c.T, &counted); });
    }
  }
  {
    cts::bullet::LemkeMlcpSolver lemke;
    CountedMlcp counted(lemke);
    const Case c{"Lemke adapter, stack 1/60 s", Scene::kStack, 1.0 / 60.0, 1.0};
    Twice(c.name, counted.window, [&] { return RunMlcp(c.scene, c.dt, c.T, &counted); });
  }
  for (cts::bullet::Method m : {cts::bullet::Method::kTamsi, cts::bullet::Method::kInteriorPoint}) {
    CountedContactSolver solver(m);
    const std::string who = m == cts::bullet::Method::kTamsi ? "ContactSolver TAMSI" : "ContactSolver interior point";
    for (const Case& c : {Case{", stack 1/240 s", Scene::kStack, 1.0 / 240.0, 1.0},
                          Case{", pile 1/60 s", Scene::kPile, 1.0 / 60.0, 1.0}}) {
      Twice(who + c.name, solver.window, [&] { return RunSolver(c.scene, c.dt, c.T, &solver); });
    }
  }
  std::printf("\n%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
