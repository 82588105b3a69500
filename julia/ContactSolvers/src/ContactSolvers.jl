"""
    ContactSolvers

Julia bindings of libcontact_solvers over its C ABI, with `ccall`. **Untested**: Julia is not
installable where this project is built and tested. To keep it from drifting, it is two layers:

* `ffi.jl`, GENERATED from `include/contact_solvers.h` by `python3 tools/gen_bindings.py` (the
  same generator as the tested Python package's declarations): every `CTS_*` constant and status
  code, every struct (`CtsLcpParameters`, ...) and one `ccall` wrapper per C function, same name
  and argument order (`cts_lcp_solver_solve(solver, algorithm, n, M, ld_M, q, z0)`);
* this file: loading the library, `ContactSolversError`, owned handles with finalizers for the
  five solvers, and Drake's LCP call shapes. Everything else is called through `ffi.jl`, with the
  semantics (and the numbers) that `python/tests/` checks through the same C functions.

The library: the environment variable `CONTACT_SOLVERS_LIB` (a path) when set at precompilation
(the package does not notice a later change: prefer the preference, which it does), else
the preference `libcontact_solvers` of this package (`using Preferences;
set_preferences!(ContactSolvers, "libcontact_solvers" => "<path of libcontact_solvers.so>")`), else
`libcontact_solvers` on the system's search path (after `cargo cinstall`).

```julia
using Pkg; Pkg.develop(path = "julia/ContactSolvers")   # from the repository's root
using ContactSolvers
success, z = solve_lcp_lemke(MobyLcpSolver(), [2.0 1.0; 1.0 2.0], [-5.0, -6.0])  # z = [4/3, 7/3]
```
"""
module ContactSolvers

using Preferences

export ContactSolversError, Solver, TamsiSolver, IpmSolver, LcpSolver, MobyLcpSolver,
       ConstraintSolver, BaraffSolver, solve_lcp_lemke, solve_lcp_fast, solve_lcp_unrevised_lemke,
       lcp_z, lcp_w, check

"The shared library `ccall` loads (see the module's documentation)."
const libcontact_solvers = get(ENV, "CONTACT_SOLVERS_LIB",
                               @load_preference("libcontact_solvers", "libcontact_solvers"))

include("ffi.jl")

"A usage error (status >= 100) with the library's message."
struct ContactSolversError <: Exception
    status::Int32
    message::String
end

Base.showerror(io::IO, e::ContactSolversError) =
    print(io, "ContactSolversError(", unsafe_string(cts_status_string(e.status)), "): ", e.message)

"""
    Solver{H}

An owned solver handle (`Ptr{H}`, freed by `close` or the finalizer) and the arrays the library
borrows from it (`borrowed`: keep problem data there until the next set call). `free` and
`last_error` are the generated `cts_<name>_solver_free` / `_last_error`.
"""
mutable struct Solver{H}
    ptr::Ptr{H}
    borrowed::Vector{Any}
    free::Function
    last_error::Function
    function Solver{H}(ptr::Ptr{H}, free::Function, last_error::Function) where {H}
        s = new{H}(ptr, Any[], free, last_error)
        finalizer(close, s)
        return s
    end
end

function Base.close(s::Solver)
    if s.ptr != C_NULL
        s.free(s.ptr)
        s.ptr = C_NULL
    end
    empty!(s.borrowed)
    return nothing
end

Base.unsafe_convert(::Type{Ptr{H}}, s::Solver{H}) where {H} =
    s.ptr == C_NULL ? throw(ContactSolversError(CTS_STATUS_NULL_POINTER, "the solver is closed")) : s.ptr

"""
    check(solver, status)

Throws `ContactSolversError` for a usage error (status >= 100) with the solver's message;
returns the status otherwise (OK or a solver outcome).
"""
function check(s::Solver, status::Integer)
    status >= CTS_STATUS_NULL_POINTER &&
        throw(ContactSolversError(status, unsafe_string(s.last_error(s.ptr))))
    return Int32(status)
end

function _new(new_fn, free_fn, last_error_fn, ::Type{H}, args...) where {H}
    out = Ref{Ptr{H}}(C_NULL)
    status = new_fn(args..., out)
    status == CTS_STATUS_OK ||
        throw(ContactSolversError(status, unsafe_string(cts_last_error_message())))
    return Solver{H}(out[], free_fn, last_error_fn)
end

"Drake's `TamsiSolver` handle for `nv` generalized velocities (`cts_tamsi_solver_*`)."
TamsiSolver(nv::Integer) =
    _new(cts_tamsi_solver_new, cts_tamsi_solver_free, cts_tamsi_solver_last_error, CtsTamsiSolver, nv)
"The interior-point handle (`cts_ipm_solver_*`)."
IpmSolver() = _new(cts_ipm_solver_new, cts_ipm_solver_free, cts_ipm_solver_last_error, CtsIpmSolver)
"An LCP handle for every algorithm (`cts_lcp_solver_*`)."
LcpSolver() = _new(cts_lcp_solver_new, cts_lcp_solver_free, cts_lcp_solver_last_error, CtsLcpSolver)
"Drake's rigid `ConstraintSolver` handle (`cts_rigid_solver_*`)."
ConstraintSolver() =
    _new(cts_rigid_solver_new, cts_rigid_solver_free, cts_rigid_solver_last_error, CtsRigidSolver)
"Baraff's pivoting solver handle (`cts_baraff_solver_*`)."
BaraffSolver() =
    _new(cts_baraff_solver_new, cts_baraff_solver_free, cts_baraff_solver_last_error, CtsBaraffSolver)

"Drake's `MobyLcpSolver`: an LCP handle, used with `solve_lcp_lemke` and `solve_lcp_fast`."
const MobyLcpSolver = LcpSolver

function _vector(s::Solver{CtsLcpSolver}, get)
    n = cts_lcp_solver_size(s)
    out = zeros(n)
    status = get(s, out, n)
    status == CTS_STATUS_NON_FINITE_RESULT || check(s, status)  # a failed solve's z is readable
    return out
end

"z of the last solve."
lcp_z(s::Solver{CtsLcpSolver}) = _vector(s, cts_lcp_solver_get_z)
"w = M z + q of the last solve."
lcp_w(s::Solver{CtsLcpSolver}) = _vector(s, cts_lcp_solver_get_w)

function _solve(s::Solver{CtsLcpSolver}, algorithm, M::AbstractMatrix, q::AbstractVector, z0)
    n = length(q)
    size(M) == (n, n) ||
        throw(ContactSolversError(CTS_STATUS_DIMENSION_MISMATCH, "M is $(size(M)), expected ($n, $n)"))
    Md = Matrix{Float64}(M)
    qd = Vector{Float64}(q)
    z0d = z0 === nothing ? C_NULL : Vector{Float64}(z0)
    status = GC.@preserve Md qd z0d check(s, cts_lcp_solver_solve(s, algorithm, n, Md, max(n, 1), qd, z0d))
    return status == CTS_STATUS_OK, lcp_z(s)
end

"Drake's `MobyLcpSolver::SolveLcpLemke`: `(success, z)` as pydrake returns it."
solve_lcp_lemke(s::Solver{CtsLcpSolver}, M, q) = _solve(s, CTS_LCP_ALGORITHM_LEMKE, M, q, nothing)
"Drake's `UnrevisedLemkeSolver::SolveLcpLemke`: `(success, z, num_pivots)`."
function solve_lcp_unrevised_lemke(s::Solver{CtsLcpSolver}, M, q)
    success, z = _solve(s, CTS_LCP_ALGORITHM_UNREVISED_LEMKE, M, q, nothing)
    return success, z, Int(cts_lcp_solver_num_pivots(s))
end

"Drake's `SolveLcpFast`, warm-started from `z0` when given: `(success, z)`."
solve_lcp_fast(s::Solver{CtsLcpSolver}, M, q; z0 = nothing) = _solve(s, CTS_LCP_ALGORITHM_FAST, M, q, z0)

function __init__()
    abi = cts_abi_version()
    abi == CTS_ABI_VERSION ||
        error("$libcontact_solvers has ABI version $abi, this package was generated for $CTS_ABI_VERSION")
end

end # module
