"""
    ContactSolvers

Julia bindings of libcontact_solvers over its C ABI (`include/contact_solvers.h`), with `ccall`.

UNTESTED: no Julia is available where this project is built and tested. This module is a thin
mirror, call by call, of the tested Python binding `python/contact_solvers/` (TAMSI, IPM); read
that file (and its tests) for the behaviour, and report what breaks.

```julia
include("examples_c/julia/ContactSolvers.jl"); using .ContactSolvers

TamsiSolver(3) do solver
    set_two_way_coupled_problem_data!(solver, M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu)
    result = solve_with_guess!(solver, dt, v0)
    result == kSuccess && println(get_generalized_velocities(solver))
end
```

Solvers: `TamsiSolver` (Drake's TAMSI) and `IpmSolver` (Dojo's interior point), as in Python.

The library: `ContactSolvers.load_library(path)` before first use, else `CONTACT_SOLVERS_LIB`,
else `target/release` then `target/debug` of the repository this file sits in, else the system's
search path. (One library per Julia session; the Python module allows one per solver.)

Rules, those of the C API:

* **Arrays.** Julia arrays are column-major, the library's layout: a `Matrix{Float64}`, or a
  view with unit row stride (`view(A, 1:3, :)`, passed with `ld = stride(A, 2)`), goes through
  without a copy; anything else (other element types, transposes, ranges) is copied once, at the
  set call, into a new `Matrix{Float64}`. Shapes are checked before the library sees a pointer.
* **Borrowing.** The library borrows problem data (Drake's rule): it reads it at the set call and
  at every later solve. `ccall` roots its arguments only for the duration of the call, so the
  solver object keeps a reference to every array it passed until the next successful set call,
  `resize!` or `close`; the calls themselves run under `GC.@preserve`. Changing the arrays in place
  between the set call and a solve changes the problem, as in Drake; `copy=true` snapshots them.
* **Errors.** Usage errors (status >= 100) throw a [`ContactSolversError`](@ref) with the status
  and the library's message, read from the handle's own `cts_tamsi_solver_last_error` (a
  thread-local channel would be unreliable: since Julia 1.7 a task can migrate between OS
  threads). Solver outcomes are returned: `solve_with_guess!` returns a `TamsiSolverResult`.
* **Handles** live in a `mutable struct` with a finalizer that frees them; `close(solver)` or
  the do-block form frees them deterministically.
* **Threads.** One solver must not be used by two tasks at once; distinct solvers are
  independent (`clone` makes per-task copies).
"""
module ContactSolvers

using Libdl

export ContactSolversError, TamsiSolver, TamsiSolverParameters, TamsiSolverIterationStats,
       TamsiSolverResult, kSuccess, kMaxIterationsReached, kLinearSolverFailed, kAlphaSolverFailed,
       set_one_way_coupled_problem_data!, set_two_way_coupled_problem_data!, solve_with_guess!,
       set_solver_parameters!, get_solver_parameters, get_iteration_statistics, vt_residual,
       get_generalized_velocities, get_normal_velocities, get_tangential_velocities,
       get_normal_forces, get_friction_forces, get_generalized_friction_forces,
       get_generalized_contact_forces, num_velocities, num_contacts, calc_jacobian, calc_alpha,
       clone, last_error,
       IpmSolver, IpmSolverParameters, IpmSolverStats, IpmOutcome, kConverged,
       kMaxIterationsReachedIpm, kNonFiniteStep, IpmContactModel, kImpact, kSecondOrderCone,
       kLinear, IpmNewtonSolve, kCondensed, kDense, IpmSensitivityParameter, kV0, kTau, kPhi, kMu,
       set_parameters!, get_parameters, set_problem_data!, solve!, get_impulses, get_next_gaps,
       get_primal, get_dual, get_stats, get_rvio_history, get_bvio_history, get_kappa_history,
       get_alpha_history, compute_sensitivities!, get_velocity_sensitivity,
       get_impulse_sensitivity, num_cone_variables

"The ABI version this module was written against (`CTS_ABI_VERSION` of the header)."
const ABI_VERSION = 2

# cts_status values (docs/c_api.md §2).
const STATUS_OK = Int32(0)
const STATUS_MAX_ITERATIONS_REACHED = Int32(1)
const STATUS_LINEAR_SOLVER_FAILED = Int32(2)
const STATUS_ALPHA_SOLVER_FAILED = Int32(3)
const STATUS_NON_FINITE_RESULT = Int32(4)
const STATUS_IPM_MAX_ITERATIONS_REACHED = Int32(41)
const STATUS_IPM_NON_FINITE_STEP = Int32(42)
const STATUS_IPM_ALMOST_CONVERGED = Int32(43)
const STATUS_IPM_STALLED = Int32(44)
const STATUS_NULL_POINTER = Int32(100)
const STATUS_INVALID_ARGUMENT = Int32(101)
const STATUS_DIMENSION_MISMATCH = Int32(102)
const STATUS_NO_PROBLEM_DATA = Int32(103)
const STATUS_WRONG_COUPLING_SCHEME = Int32(104)
const STATUS_NO_SOLUTION = Int32(105)
const STATUS_ALLOCATION_FAILED = Int32(106)
const STATUS_PANIC = Int32(199)

"Drake's `TamsiSolverResult`: the outcome of a TAMSI solve, same names and values."
@enum TamsiSolverResult::Int32 begin
    kSuccess = 0
    kMaxIterationsReached = 1
    kLinearSolverFailed = 2
    kAlphaSolverFailed = 3
end

"A usage error: `status` (a `cts_status` value) and the library's `message`."
struct ContactSolversError <: Exception
    status::Int32
    message::String
end

function Base.showerror(io::IO, e::ContactSolversError)
    print(io, "ContactSolversError: ", status_string(e.status), " (", e.status, "): ", e.message)
end

# -- the library ------------------------------------------------------------------------------

const _lib = Ref{Ptr{Cvoid}}(C_NULL)
const _lib_path = Ref{String}("")
const _load_lock = ReentrantLock()
# Every C function's address, resolved once when the library is loaded: afterwards the table is
# only read, so solvers on different threads and finalizers (which must not take locks or mutate
# shared state) can use it.
const _symbols = Dict{Symbol,Ptr{Cvoid}}()
const _FUNCTIONS = (
    :cts_version, :cts_abi_version, :cts_status_string, :cts_last_error_message,
    :cts_tamsi_parameters_default, :cts_tamsi_solver_new, :cts_tamsi_solver_free,
    :cts_tamsi_solver_clone, :cts_tamsi_solver_resize, :cts_tamsi_solver_set_parameters,
    :cts_tamsi_solver_get_parameters, :cts_tamsi_solver_set_one_way_coupled_problem_data,
    :cts_tamsi_solver_set_two_way_coupled_problem_data, :cts_tamsi_solver_solve_with_guess,
    :cts_tamsi_solver_get_generalized_velocities, :cts_tamsi_solver_get_normal_velocities,
    :cts_tamsi_solver_get_tangential_velocities, :cts_tamsi_solver_get_normal_forces,
    :cts_tamsi_solver_get_friction_forces, :cts_tamsi_solver_get_generalized_friction_forces,
    :cts_tamsi_solver_get_generalized_contact_forces, :cts_tamsi_solver_get_iteration_stats,
    :cts_tamsi_solver_get_residuals, :cts_tamsi_solver_num_velocities,
    :cts_tamsi_solver_num_contacts, :cts_tamsi_solver_last_error, :cts_tamsi_calc_alpha,
    :cts_tamsi_solver_calc_jacobian,
    :cts_ipm_parameters_default, :cts_ipm_solver_new, :cts_ipm_solver_free,
    :cts_ipm_solver_clone, :cts_ipm_solver_set_parameters, :cts_ipm_solver_get_parameters,
    :cts_ipm_solver_set_problem_data, :cts_ipm_solver_solve, :cts_ipm_solver_solve_with_guess,
    :cts_ipm_solver_get_generalized_velocities, :cts_ipm_solver_get_impulses,
    :cts_ipm_solver_get_next_gaps, :cts_ipm_solver_num_cone_variables,
    :cts_ipm_solver_get_primal, :cts_ipm_solver_get_dual, :cts_ipm_solver_get_stats,
    :cts_ipm_solver_get_rvio_history, :cts_ipm_solver_get_bvio_history,
    :cts_ipm_solver_get_kappa_history, :cts_ipm_solver_get_alpha_history,
    :cts_ipm_solver_compute_sensitivities, :cts_ipm_solver_get_velocity_sensitivity,
    :cts_ipm_solver_get_impulse_sensitivity, :cts_ipm_solver_num_velocities,
    :cts_ipm_solver_num_contacts, :cts_ipm_solver_last_error,
)

function _default_library_path()
    env = get(ENV, "CONTACT_SOLVERS_LIB", "")
    isempty(env) || return env
    root = normpath(joinpath(@__DIR__, "..", ".."))
    for profile in ("release", "debug")
        candidate = joinpath(root, "target", profile, "libcontact_solvers." * Libdl.dlext)
        isfile(candidate) && return candidate
    end
    found = Libdl.find_library(["libcontact_solvers", "contact_solvers"])
    isempty(found) && error("libcontact_solvers not found: set CONTACT_SOLVERS_LIB, build it " *
                            "with `cargo build --release`, or install it (`make install`)")
    return found
end

"""
    load_library(path = nothing)

Loads libcontact_solvers (once per session), checks its ABI version and resolves its functions.
Called on first use with no path; call it first to choose the file.
"""
function load_library(path::Union{Nothing,AbstractString} = nothing)
    lock(_load_lock) do
        if _lib[] != C_NULL
            path === nothing || path == _lib_path[] ||
                error("libcontact_solvers already loaded from $(_lib_path[])")
            return _lib_path[]
        end
        p = path === nothing ? _default_library_path() : String(path)
        h = Libdl.dlopen(p)
        abi = ccall(Libdl.dlsym(h, :cts_abi_version), UInt32, ())
        if abi != ABI_VERSION
            Libdl.dlclose(h)
            error("$p: ABI version $abi, this module expects $ABI_VERSION")
        end
        for name in _FUNCTIONS
            _symbols[name] = Libdl.dlsym(h, name)
        end
        _lib_path[] = p
        _lib[] = h
        return p
    end
end

function _sym(name::Symbol)
    _lib[] == C_NULL && load_library()
    return _symbols[name]
end

"`cts_version()`: the library's version, e.g. `\"0.2.0\"`."
version() = unsafe_string(ccall(_sym(:cts_version), Cstring, ()))

"`cts_abi_version()`."
abi_version() = Int(ccall(_sym(:cts_abi_version), UInt32, ()))

"`cts_status_string(status)`: the library's name for any status value."
status_string(status::Integer) =
    unsafe_string(ccall(_sym(:cts_status_string), Cstring, (Int32,), Int32(status)))

_last_error_message() = unsafe_string(ccall(_sym(:cts_last_error_message), Cstring, ()))

# -- arrays -------------------------------------------------------------------------------------

# Arrays that ccall turns into a `Ptr{Cdouble}` to their first element (a `pointer` exists).
const _PointerMatrix = Union{Matrix{Float64},SubArray{Float64,2,Matrix{Float64}}}
const _PointerVector = Union{Vector{Float64},SubArray{Float64,1,<:Array{Float64}}}

# A Float64 matrix the library can read column-major, and its leading dimension: no copy for a
# Matrix{Float64} or a strided view of one with unit row stride; otherwise a new Matrix{Float64}.
function _matrix(x::AbstractMatrix, rows::Integer, cols::Integer, name::String, copy::Bool)
    size(x) == (rows, cols) ||
        throw(ContactSolversError(STATUS_DIMENSION_MISMATCH,
                                  "$name: size $(size(x)), expected ($rows, $cols)"))
    if !copy && rows > 0 && cols > 0 && x isa _PointerMatrix && x isa StridedMatrix &&
       stride(x, 1) == 1 && stride(x, 2) >= rows
        return x, stride(x, 2)
    end
    return Matrix{Float64}(x), max(1, rows)  # Matrix{Float64}(x) always copies
end
_matrix(x, rows, cols, name, copy) =
    throw(ContactSolversError(STATUS_DIMENSION_MISMATCH,
                              "$name: a $(typeof(x)), expected a ($rows, $cols) matrix"))

function _vector(x::AbstractVector, n::Integer, name::String, copy::Bool)
    length(x) == n ||
        throw(ContactSolversError(STATUS_DIMENSION_MISMATCH,
                                  "$name: length $(length(x)), expected $n"))
    if !copy && x isa _PointerVector && x isa StridedVector && stride(x, 1) == 1
        return x
    end
    return Vector{Float64}(x)
end
_vector(x, n, name, copy) =
    throw(ContactSolversError(STATUS_DIMENSION_MISMATCH,
                              "$name: a $(typeof(x)), expected a vector of length $n"))

# -- TAMSI --------------------------------------------------------------------------------------

"""
Drake's `TamsiSolverParameters` (defaults are Drake's); also the C struct
`cts_tamsi_parameters` (same field order and types). Validated when set.
"""
Base.@kwdef struct TamsiSolverParameters
    # vs, m/s, > 0: the slip speed at which friction saturates.
    stiction_tolerance::Cdouble = 1.0e-4
    # Maximum number of Newton updates, >= 0.
    max_iterations::Int32 = 100
    # rtol in (0, 1): convergence when the velocity updates drop below rtol·vs.
    relative_tolerance::Cdouble = 1.0e-2
    # Largest change of a slip direction per iteration, rad, in (0, π/2).
    theta_max::Cdouble = π / 3
    # Not Drake's: threads of a solve on block-sparse data, in [0, 256]; 0 or 1 = sequential.
    num_threads::Int32 = 0
end

# cts_tamsi_iteration_stats
struct _CIterationStats
    num_iterations::Int32
    vt_residual::Cdouble
end

"Drake's `TamsiSolverIterationStats`: Newton updates of the last solve and the ‖Δvt‖ history."
struct TamsiSolverIterationStats
    num_iterations::Int
    residuals::Vector{Float64}
end

"The last entry of the residual history (NaN when there is none)."
vt_residual(s::TamsiSolverIterationStats) = isempty(s.residuals) ? NaN : s.residuals[end]

"""
    TamsiSolver(nv)
    TamsiSolver(f, nv)   # do-block: the solver is closed when f returns

Drake's `TamsiSolver<double>`: solves `M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)` for the next-step
generalized velocities `v` (nv), with nc contacts: `fn` given (one-way coupling) or
`fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊` (two-way). `M` nv×nv, `Jn` nc×nv, `Jt` 2nc×nv, the
per-contact vectors nc. SI units, forces in N.
"""
mutable struct TamsiSolver
    handle::Ptr{Cvoid}
    borrowed::Tuple  # the arrays the library reads until the next set call, resize! or close

    function TamsiSolver(nv::Integer)
        nv >= 0 || throw(ContactSolversError(STATUS_INVALID_ARGUMENT, "nv = $nv < 0"))
        out = Ref{Ptr{Cvoid}}(C_NULL)
        st = ccall(_sym(:cts_tamsi_solver_new), Int32, (Csize_t, Ref{Ptr{Cvoid}}), nv, out)
        st == STATUS_OK || throw(ContactSolversError(st, _last_error_message()))
        return finalizer(close, new(out[], ()))
    end

    # Adopts a handle made by the library (clone).
    TamsiSolver(handle::Ptr{Cvoid}, ::Val{:adopt}) = finalizer(close, new(handle, ()))
end

_adopt(handle::Ptr{Cvoid}) = TamsiSolver(handle, Val(:adopt))

function TamsiSolver(f::Function, nv::Integer)
    solver = TamsiSolver(nv)
    try
        return f(solver)
    finally
        close(solver)
    end
end

"Frees the C handle (`cts_tamsi_solver_free`) and drops the borrowed arrays. Idempotent."
function Base.close(s::TamsiSolver)
    h = s.handle
    s.handle = C_NULL
    # A handle exists only once the library is loaded: read the table, never load here (this
    # runs in finalizers too).
    h == C_NULL || ccall(_symbols[:cts_tamsi_solver_free], Cvoid, (Ptr{Cvoid},), h)
    s.borrowed = ()
    return nothing
end

Base.isopen(s::TamsiSolver) = s.handle != C_NULL

function _h(s::TamsiSolver)
    s.handle == C_NULL && throw(ContactSolversError(STATUS_NULL_POINTER, "the solver is closed"))
    return s.handle
end

function _check(s::TamsiSolver, st::Int32)
    st == STATUS_OK || throw(ContactSolversError(st, last_error(s)))
    return nothing
end

"`cts_tamsi_solver_last_error`: detail of the last call on `s` that did not return OK."
last_error(s::TamsiSolver) =
    unsafe_string(ccall(_sym(:cts_tamsi_solver_last_error), Cstring, (Ptr{Cvoid},), _h(s)))

"A deep copy of the parameters and workspace, without problem data (e.g. for another task)."
function clone(s::TamsiSolver)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    st = ccall(_sym(:cts_tamsi_solver_clone), Int32, (Ptr{Cvoid}, Ref{Ptr{Cvoid}}), _h(s), out)
    st == STATUS_OK || throw(ContactSolversError(st, _last_error_message()))
    return _adopt(out[])
end

"Changes nv (> 0), as Drake's `ResizeIfNeeded`; drops problem data and results."
function Base.resize!(s::TamsiSolver, nv::Integer)
    nv >= 0 || throw(ContactSolversError(STATUS_INVALID_ARGUMENT, "nv = $nv < 0"))
    _check(s, ccall(_sym(:cts_tamsi_solver_resize), Int32, (Ptr{Cvoid}, Csize_t), _h(s), nv))
    s.borrowed = ()
    return s
end

num_velocities(s::TamsiSolver) =
    Int(ccall(_sym(:cts_tamsi_solver_num_velocities), Csize_t, (Ptr{Cvoid},), _h(s)))

"nc of the current problem data (0 without data)."
num_contacts(s::TamsiSolver) =
    Int(ccall(_sym(:cts_tamsi_solver_num_contacts), Csize_t, (Ptr{Cvoid},), _h(s)))

"Validates and sets the parameters (throws `INVALID_ARGUMENT`, nothing changed)."
function set_solver_parameters!(s::TamsiSolver, p::TamsiSolverParameters)
    _check(s, ccall(_sym(:cts_tamsi_solver_set_parameters), Int32,
                    (Ptr{Cvoid}, Ref{TamsiSolverParameters}), _h(s), p))
    return s
end

function get_solver_parameters(s::TamsiSolver)
    p = Ref{TamsiSolverParameters}(TamsiSolverParameters())
    _check(s, ccall(_sym(:cts_tamsi_solver_get_parameters), Int32,
                    (Ptr{Cvoid}, Ref{TamsiSolverParameters}), _h(s), p))
    return p[]
end

function _problem_arrays(s, M, Jn, Jt, p_star, per_contact, copy)
    nv = num_velocities(s)
    first_name, first = per_contact[1]
    first isa AbstractVector ||
        throw(ContactSolversError(STATUS_DIMENSION_MISMATCH, "$first_name: expected a vector"))
    nc = length(first)
    mats = (_matrix(M, nv, nv, "M", copy), _matrix(Jn, nc, nv, "Jn", copy),
            _matrix(Jt, 2nc, nv, "Jt", copy))
    vecs = (_vector(p_star, nv, "p_star", copy),
            map(((name, x),) -> _vector(x, nc, name, copy), per_contact)...)
    return nc, mats, vecs
end

"""
    set_one_way_coupled_problem_data!(s, M, Jn, Jt, p_star, fn, mu; copy = false)

Drake's `SetOneWayCoupledProblemData`: normal forces `fn` (N) given; nc = `length(fn)`.
Borrowed (see the module docs); `copy = true` snapshots the data. On an error the previous data
stays set.
"""
function set_one_way_coupled_problem_data!(s::TamsiSolver, M, Jn, Jt, p_star, fn, mu;
                                           copy::Bool = false)
    nc, ((m, ld_m), (jn, ld_jn), (jt, ld_jt)), vecs =
        _problem_arrays(s, M, Jn, Jt, p_star, (("fn", fn), ("mu", mu)), copy)
    st = GC.@preserve m jn jt vecs ccall(
        _sym(:cts_tamsi_solver_set_one_way_coupled_problem_data), Int32,
        (Ptr{Cvoid}, Csize_t, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}, Csize_t,
         Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble}),
        _h(s), nc, m, ld_m, jn, ld_jn, jt, ld_jt, vecs[1], vecs[2], vecs[3])
    _check(s, st)
    s.borrowed = (m, jn, jt, vecs...)  # only now: a failed call keeps the old borrow
    return s
end

"""
    set_two_way_coupled_problem_data!(s, M, Jn, Jt, p_star, fn0, stiffness, dissipation, mu;
                                      copy = false)

Drake's `SetTwoWayCoupledProblemData`: `fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊`, with `fn0` (N),
`stiffness` k (N/m), `dissipation` d (s/m) and `mu` per contact; nc = `length(fn0)`. Borrowed.
"""
function set_two_way_coupled_problem_data!(s::TamsiSolver, M, Jn, Jt, p_star, fn0, stiffness,
                                           dissipation, mu; copy::Bool = false)
    per_contact = (("fn0", fn0), ("stiffness", stiffness), ("dissipation", dissipation),
                   ("mu", mu))
    nc, ((m, ld_m), (jn, ld_jn), (jt, ld_jt)), vecs =
        _problem_arrays(s, M, Jn, Jt, p_star, per_contact, copy)
    st = GC.@preserve m jn jt vecs ccall(
        _sym(:cts_tamsi_solver_set_two_way_coupled_problem_data), Int32,
        (Ptr{Cvoid}, Csize_t, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}, Csize_t,
         Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Cdouble}),
        _h(s), nc, m, ld_m, jn, ld_jn, jt, ld_jt, vecs[1], vecs[2], vecs[3], vecs[4], vecs[5])
    _check(s, st)
    s.borrowed = (m, jn, jt, vecs...)
    return s
end

"""
    solve_with_guess!(s, dt, v_guess) -> TamsiSolverResult

Drake's `SolveWithGuess`: `dt` in s (finite, > 0), `v_guess` of length nv. Returns the outcome
(after a failure every getter holds values at the last iterate); throws on usage errors.
"""
function solve_with_guess!(s::TamsiSolver, dt::Real, v_guess::AbstractVector)
    g = Vector{Float64}(v_guess)
    st = GC.@preserve g ccall(_sym(:cts_tamsi_solver_solve_with_guess), Int32,
                              (Ptr{Cvoid}, Cdouble, Ptr{Cdouble}, Csize_t),
                              _h(s), dt, g, length(g))
    STATUS_OK <= st <= STATUS_ALPHA_SOLVER_FAILED && return TamsiSolverResult(st)
    throw(ContactSolversError(st, last_error(s)))
end

function _get(s::TamsiSolver, name::Symbol, n::Integer)
    out = Vector{Float64}(undef, n)
    _check(s, ccall(_sym(name), Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t), _h(s), out, n))
    return out
end

"v (nv; m/s or rad/s) of the last solve."
get_generalized_velocities(s::TamsiSolver) =
    _get(s, :cts_tamsi_solver_get_generalized_velocities, num_velocities(s))
"vn = Jn v (nc; m/s, positive when separating)."
get_normal_velocities(s::TamsiSolver) =
    _get(s, :cts_tamsi_solver_get_normal_velocities, num_contacts(s))
"vt = Jt v (2nc; m/s)."
get_tangential_velocities(s::TamsiSolver) =
    _get(s, :cts_tamsi_solver_get_tangential_velocities, 2num_contacts(s))
"fn (nc; N)."
get_normal_forces(s::TamsiSolver) = _get(s, :cts_tamsi_solver_get_normal_forces, num_contacts(s))
"ft (2nc; N)."
get_friction_forces(s::TamsiSolver) =
    _get(s, :cts_tamsi_solver_get_friction_forces, 2num_contacts(s))
"τ_f = Jtᵀ ft (nv; N or N·m)."
get_generalized_friction_forces(s::TamsiSolver) =
    _get(s, :cts_tamsi_solver_get_generalized_friction_forces, num_velocities(s))
"τ = Jtᵀ ft + Jnᵀ fn (nv; N or N·m)."
get_generalized_contact_forces(s::TamsiSolver) =
    _get(s, :cts_tamsi_solver_get_generalized_contact_forces, num_velocities(s))

"Number of Newton updates and the ‖Δvt‖ history of the last solve."
function get_iteration_statistics(s::TamsiSolver)
    c = Ref{_CIterationStats}(_CIterationStats(0, NaN))
    _check(s, ccall(_sym(:cts_tamsi_solver_get_iteration_stats), Int32,
                    (Ptr{Cvoid}, Ref{_CIterationStats}), _h(s), c))
    count = Ref{Csize_t}(0)
    _check(s, ccall(_sym(:cts_tamsi_solver_get_residuals), Int32,
                    (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Ref{Csize_t}), _h(s), C_NULL, 0, count))
    residuals = Vector{Float64}(undef, count[])
    _check(s, ccall(_sym(:cts_tamsi_solver_get_residuals), Int32,
                    (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Ref{Csize_t}),
                    _h(s), residuals, length(residuals), count))
    return TamsiSolverIterationStats(Int(c[].num_iterations), residuals)
end

"The Newton Jacobian ∂R/∂v (nv×nv) of the current problem at `v`."
function calc_jacobian(s::TamsiSolver, dt::Real, v::AbstractVector)
    vv = Vector{Float64}(v)
    nv = num_velocities(s)
    J = Matrix{Float64}(undef, nv, nv)
    _check(s, ccall(_sym(:cts_tamsi_solver_calc_jacobian), Int32,
                    (Ptr{Cvoid}, Cdouble, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}, Csize_t),
                    _h(s), dt, vv, length(vv), J, max(1, nv)))
    return J
end

"""
    calc_alpha(vt, dvt, cos_theta_max, stiction_tolerance, relative_tolerance)

Drake's `internal::TalsLimiter::CalcAlpha` for one contact (2-vectors): α, or `nothing` where
Drake returns `nullopt`; throws on usage errors.
"""
function calc_alpha(vt::AbstractVector, dvt::AbstractVector, cos_theta_max::Real,
                    stiction_tolerance::Real, relative_tolerance::Real)
    a = _vector(vt, 2, "vt", true)
    b = _vector(dvt, 2, "dvt", true)
    alpha = Ref{Cdouble}(NaN)
    st = ccall(_sym(:cts_tamsi_calc_alpha), Int32,
               (Ptr{Cdouble}, Ptr{Cdouble}, Cdouble, Cdouble, Cdouble, Ref{Cdouble}),
               a, b, cos_theta_max, stiction_tolerance, relative_tolerance, alpha)
    st == STATUS_OK && return alpha[]
    st == STATUS_ALPHA_SOLVER_FAILED && return nothing
    throw(ContactSolversError(st, _last_error_message()))
end

# -- Interior point (Dojo) ----------------------------------------------------------------------

"Outcome of an interior-point solve (the C++ wrapper's `cts::IpmOutcome`; the Julia name of
`kMaxIterationsReached` carries an `Ipm` suffix to stay distinct from TAMSI's)."
@enum IpmOutcome::Int32 begin
    kConverged = 0
    kMaxIterationsReachedIpm = 41
    kNonFiniteStep = 42
    kAlmostConverged = 43  # engine iteration: the best iterate meets 100x the tolerances
    kStalled = 44          # engine iteration: stall exit far from the tolerances
end

"Contact model of one contact (`CTS_IPM_MODEL_*`)."
@enum IpmContactModel::Int32 begin
    kImpact = 0           # frictionless
    kSecondOrderCone = 1  # isotropic Coulomb friction (Dojo's nonlinear model)
    kLinear = 2           # four friction directions (L1 diamond: sliding bodies drift sideways)
end

"How the Newton system is solved (`CTS_IPM_NEWTON_SOLVE_*`)."
@enum IpmNewtonSolve::Int32 begin
    kCondensed = 0
    kDense = 1
end

"The problem data a sensitivity is taken with respect to (`CTS_IPM_SENSITIVITY_*`)."
@enum IpmSensitivityParameter::Int32 begin
    kV0 = 0   # n columns
    kTau = 1  # n columns
    kPhi = 2  # nc columns
    kMu = 3   # nc columns
end

"""
`cts_ipm_parameters` (same field order and C types; defaults are `cts_ipm_parameters_default`'s:
the engine iteration with the relative `tolerance`/`complementarity_tolerance`;
`dojo_compatible = 1` runs Dojo's iteration with the absolute `rtol`/`btol`).
Booleans are `Int32` 0/1, `newton_solve` an `Int32` (`Int32(kDense)`). Validated when set.
"""
Base.@kwdef struct IpmSolverParameters
    rtol::Cdouble = 1.0e-6
    btol::Cdouble = 1.0e-4
    max_iter::Int32 = 100
    max_ls::Int32 = 10
    undercut::Cdouble = Inf
    no_progress_max::Int32 = 3
    no_progress_undercut::Cdouble = 10.0
    dojo_lagged_kappa::Int32 = 0
    fixed_kappa::Cdouble = 0.0
    warm_start::Int32 = 0
    newton_solve::Int32 = 0
    rvio_floor_in_backtracking::Int32 = 0
    dojo_compatible::Int32 = 0
    tolerance::Cdouble = 1.0e-8
    complementarity_tolerance::Cdouble = 1.0e-6
    centrality_correctors::Int32 = 2
    proximal_regularization::Cdouble = 1.0e-2
    normal_compliance::Cdouble = 0.0
    stall_iterations::Int32 = 20
    near_rigid_beta::Cdouble = 0.0
    natural_map_tolerance::Cdouble = 1.0e-6
    num_threads::Int32 = 0
end

"`cts_ipm_stats` (same layout): `status` is 0, 41, 42, 43 or 44 (`IpmOutcome(stats.status)`)."
struct IpmSolverStats
    status::Int32
    iterations::Int32
    rvio::Cdouble
    bvio::Cdouble
    kappa::Cdouble
    line_search_exhausted::Int32
    boundary_hits::Int32
    residual::Cdouble
    complementarity::Cdouble
    merit::Cdouble
    momentum_scale::Cdouble
    velocity_scale::Cdouble
    centrality_correctors::Int32
    natural_map::Cdouble
end

"""
    IpmSolver()
    IpmSolver(f)   # do-block: the solver is closed when f returns

Dojo's interior-point contact solver (`cts_ipm_*`): one time step in generalized velocities,
`M (v − v0) − h τ − Σ_i [Jn_iᵀ γn_i + Jt_iᵀ b_i] = 0`, `0 <= φ_i + h Jn_i v ⟂ γn_i >= 0`,
Coulomb friction on the second-order cone (or the linear model, or none); impulses in N·s;
sensitivities by implicit differentiation. Mirrors the Python `IpmSolver`.
"""
mutable struct IpmSolver
    handle::Ptr{Cvoid}
    borrowed::Tuple

    function IpmSolver()
        out = Ref{Ptr{Cvoid}}(C_NULL)
        st = ccall(_sym(:cts_ipm_solver_new), Int32, (Ref{Ptr{Cvoid}},), out)
        st == STATUS_OK || throw(ContactSolversError(st, _last_error_message()))
        return finalizer(close, new(out[], ()))
    end

    IpmSolver(handle::Ptr{Cvoid}, ::Val{:adopt}) = finalizer(close, new(handle, ()))
end

function IpmSolver(f::Function)
    solver = IpmSolver()
    try
        return f(solver)
    finally
        close(solver)
    end
end

function Base.close(s::IpmSolver)
    h = s.handle
    s.handle = C_NULL
    h == C_NULL || ccall(_symbols[:cts_ipm_solver_free], Cvoid, (Ptr{Cvoid},), h)
    s.borrowed = ()
    return nothing
end

Base.isopen(s::IpmSolver) = s.handle != C_NULL

function _h(s::IpmSolver)
    s.handle == C_NULL && throw(ContactSolversError(STATUS_NULL_POINTER, "the solver is closed"))
    return s.handle
end

function _check(s::IpmSolver, st::Int32)
    st == STATUS_OK || throw(ContactSolversError(st, last_error(s)))
    return nothing
end

last_error(s::IpmSolver) =
    unsafe_string(ccall(_sym(:cts_ipm_solver_last_error), Cstring, (Ptr{Cvoid},), _h(s)))

function clone(s::IpmSolver)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    st = ccall(_sym(:cts_ipm_solver_clone), Int32, (Ptr{Cvoid}, Ref{Ptr{Cvoid}}), _h(s), out)
    st == STATUS_OK || throw(ContactSolversError(st, _last_error_message()))
    return IpmSolver(out[], Val(:adopt))
end

num_velocities(s::IpmSolver) =
    Int(ccall(_sym(:cts_ipm_solver_num_velocities), Csize_t, (Ptr{Cvoid},), _h(s)))
num_contacts(s::IpmSolver) =
    Int(ccall(_sym(:cts_ipm_solver_num_contacts), Csize_t, (Ptr{Cvoid},), _h(s)))
num_cone_variables(s::IpmSolver) =
    Int(ccall(_sym(:cts_ipm_solver_num_cone_variables), Csize_t, (Ptr{Cvoid},), _h(s)))

function set_parameters!(s::IpmSolver, p::IpmSolverParameters)
    _check(s, ccall(_sym(:cts_ipm_solver_set_parameters), Int32,
                    (Ptr{Cvoid}, Ref{IpmSolverParameters}), _h(s), p))
    return s
end

function get_parameters(s::IpmSolver)
    p = Ref{IpmSolverParameters}(IpmSolverParameters())
    _check(s, ccall(_sym(:cts_ipm_solver_get_parameters), Int32,
                    (Ptr{Cvoid}, Ref{IpmSolverParameters}), _h(s), p))
    return p[]
end

"""
    set_problem_data!(s, M, Jn, Jt, v0, tau, h, phi, mu, models; vt_offset = nothing,
                      copy = false)

One time step: `M` n×n, `Jn` nc×n, `Jt` 2nc×n, `v0` and `tau` n, `h` (s), `phi` (m), `mu` and
`models` (`IpmContactModel`s or integers) nc each, optional `vt_offset` (2nc); n = `length(v0)`,
nc = `length(phi)`. Borrowed; `copy = true` snapshots. On an error the previous data stays set.
"""
function set_problem_data!(s::IpmSolver, M, Jn, Jt, v0, tau, h::Real, phi, mu, models;
                           vt_offset = nothing, copy::Bool = false)
    (v0 isa AbstractVector && phi isa AbstractVector) ||
        throw(ContactSolversError(STATUS_DIMENSION_MISMATCH, "v0 and phi must be vectors"))
    n, nc = length(v0), length(phi)
    m, ld_m = _matrix(M, n, n, "M", copy)
    jn, ld_jn = _matrix(Jn, nc, n, "Jn", copy)
    jt, ld_jt = _matrix(Jt, 2nc, n, "Jt", copy)
    v0_, tau_ = _vector(v0, n, "v0", copy), _vector(tau, n, "tau", copy)
    phi_, mu_ = _vector(phi, nc, "phi", copy), _vector(mu, nc, "mu", copy)
    length(models) == nc ||
        throw(ContactSolversError(STATUS_DIMENSION_MISMATCH,
                                  "models: length $(length(models)), expected $nc"))
    kinds = Int32[Int32(k) for k in models]
    offset = vt_offset === nothing ? nothing : _vector(vt_offset, 2nc, "vt_offset", copy)
    offset_len = offset === nothing ? 0 : 2nc
    offset_ptr = offset === nothing ? Ptr{Cdouble}(C_NULL) : pointer(offset)
    st = GC.@preserve m jn jt v0_ tau_ phi_ mu_ kinds offset ccall(
        _sym(:cts_ipm_solver_set_problem_data), Int32,
        (Ptr{Cvoid}, Csize_t, Csize_t, Ptr{Cdouble}, Csize_t, Ptr{Cdouble}, Csize_t, Ptr{Cdouble},
         Csize_t, Ptr{Cdouble}, Ptr{Cdouble}, Cdouble, Ptr{Cdouble}, Ptr{Cdouble}, Ptr{Int32},
         Ptr{Cdouble}, Csize_t),
        _h(s), n, nc, m, ld_m, jn, ld_jn, jt, ld_jt, v0_, tau_, h, phi_, mu_, kinds, offset_ptr,
        offset_len)
    _check(s, st)
    s.borrowed = (m, jn, jt, v0_, tau_, phi_, mu_, kinds, offset)
    return s
end

function _outcome(s::IpmSolver, st::Int32)
    st < STATUS_NULL_POINTER && return IpmOutcome(st)
    throw(ContactSolversError(st, last_error(s)))
end

"Solves from v = v0; returns an `IpmOutcome`, throws on usage errors."
solve!(s::IpmSolver) =
    _outcome(s, ccall(_sym(:cts_ipm_solver_solve), Int32, (Ptr{Cvoid},), _h(s)))

"Solves from the velocity guess `v_guess` (n); returns an `IpmOutcome`."
function solve_with_guess!(s::IpmSolver, v_guess::AbstractVector)
    g = Vector{Float64}(v_guess)
    st = GC.@preserve g ccall(_sym(:cts_ipm_solver_solve_with_guess), Int32,
                              (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t), _h(s), g, length(g))
    return _outcome(s, st)
end

function _get(s::IpmSolver, name::Symbol, n::Integer)
    out = Vector{Float64}(undef, n)
    _check(s, ccall(_sym(name), Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t), _h(s), out, n))
    return out
end

get_generalized_velocities(s::IpmSolver) =
    _get(s, :cts_ipm_solver_get_generalized_velocities, num_velocities(s))
"Impulses (3nc; N·s): (γn, friction t1, friction t2) per contact; `reshape(x, 3, :)` per column."
get_impulses(s::IpmSolver) = _get(s, :cts_ipm_solver_get_impulses, 3num_contacts(s))
get_next_gaps(s::IpmSolver) = _get(s, :cts_ipm_solver_get_next_gaps, num_contacts(s))
get_primal(s::IpmSolver) = _get(s, :cts_ipm_solver_get_primal, num_cone_variables(s))
get_dual(s::IpmSolver) = _get(s, :cts_ipm_solver_get_dual, num_cone_variables(s))

function get_stats(s::IpmSolver)
    c = Ref{IpmSolverStats}()  # isbits: filled by the call
    _check(s, ccall(_sym(:cts_ipm_solver_get_stats), Int32, (Ptr{Cvoid}, Ref{IpmSolverStats}),
                    _h(s), c))
    return c[]
end

function _history(s::IpmSolver, name::Symbol)
    count = Ref{Csize_t}(0)
    f = _sym(name)
    _check(s, ccall(f, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Ref{Csize_t}),
                    _h(s), C_NULL, 0, count))
    out = Vector{Float64}(undef, count[])
    _check(s, ccall(f, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, Ref{Csize_t}),
                    _h(s), out, length(out), count))
    return out
end

get_rvio_history(s::IpmSolver) = _history(s, :cts_ipm_solver_get_rvio_history)
get_bvio_history(s::IpmSolver) = _history(s, :cts_ipm_solver_get_bvio_history)
get_kappa_history(s::IpmSolver) = _history(s, :cts_ipm_solver_get_kappa_history)
get_alpha_history(s::IpmSolver) = _history(s, :cts_ipm_solver_get_alpha_history)

"Implicit differentiation at the last solve's iterate (reads the borrowed data)."
function compute_sensitivities!(s::IpmSolver)
    _check(s, ccall(_sym(:cts_ipm_solver_compute_sensitivities), Int32, (Ptr{Cvoid},), _h(s)))
    return s
end

function _sensitivity(s::IpmSolver, name::Symbol, rows::Integer, p::IpmSensitivityParameter)
    cols = p in (kV0, kTau) ? num_velocities(s) : num_contacts(s)
    out = Matrix{Float64}(undef, rows, cols)
    _check(s, ccall(_sym(name), Int32, (Ptr{Cvoid}, Int32, Ptr{Cdouble}, Csize_t, Csize_t),
                    _h(s), Int32(p), out, max(1, rows), cols))
    return out
end

"∂v/∂θ (n × n for kV0 and kTau, n × nc for kPhi and kMu)."
get_velocity_sensitivity(s::IpmSolver, p::IpmSensitivityParameter) =
    _sensitivity(s, :cts_ipm_solver_get_velocity_sensitivity, num_velocities(s), p)
"∂λ/∂θ (3nc rows, λ as in `get_impulses`)."
get_impulse_sensitivity(s::IpmSolver, p::IpmSensitivityParameter) =
    _sensitivity(s, :cts_ipm_solver_get_impulse_sensitivity, 3num_contacts(s), p)

end # module
