# Rolling cylinder (Drake's RollingCylinder test, docs/tamsi_cases.md §3) with the TAMSI
# solver from Julia: the same scene and printout as examples_c/rolling_cylinder.c and
# examples_c/python/rolling_cylinder.py. UNTESTED (no Julia where this project is tested): a
# mirror of the tested Python example.
#
# Run: julia examples_c/julia/rolling_cylinder.jl [path/to/libcontact_solvers.so]

include(joinpath(@__DIR__, "ContactSolvers.jl"))
using .ContactSolvers
using Printf

const NV = 3

print_vector(label, x) = println("  ", rpad(label, 22), ":", join(" " .* repr.(Float64.(x))))

function solve_step(solver, name, vx0, nc)
    m, radius, g, inertia, mu, dt = 1.0, 1.0, 9.0, 1.0, 0.1, 1.0e-3
    penetration_allowance, x_initial, h0 = 1.0e-6, 1.0e-3, 0.5
    stiffness = m * g / penetration_allowance          # 9e6 N/m
    omega_n = sqrt(stiffness / m)                       # 3000 rad/s
    dissipation = 1.0 * (1.0 / omega_n) / penetration_allowance  # critical damping

    # Julia matrices are column-major, the library's layout: passed without copies.
    M = [m 0 0; 0 m 0; 0 0 inertia]
    Jn = zeros(nc, NV)
    Jn[:, 2] .= 1.0                       # vn = vy
    Jt = zeros(2nc, NV)
    Jt[1:2:end, 1] .= 1.0                 # row 2i-1: vt0 = vx + R ω (row 2i, out of plane, stays 0)
    Jt[1:2:end, 3] .= radius
    v0 = [vx0, -sqrt(2.0 * g * h0), 0.0]  # -3 m/s at impact
    p_star = M * v0 + dt * [0.0, -m * g, 0.0]

    # The solver keeps these arrays alive (the library borrows them) until the next set call.
    set_two_way_coupled_problem_data!(solver, M, Jn, Jt, p_star,
                                      fill(stiffness * (x_initial / nc), nc), fill(stiffness, nc),
                                      fill(dissipation, nc), fill(mu, nc))
    result = solve_with_guess!(solver, dt, v0)

    stats = get_iteration_statistics(solver)
    v = get_generalized_velocities(solver)
    vn = get_normal_velocities(solver)
    vt = get_tangential_velocities(solver)
    fn = get_normal_forces(solver)
    ft = get_friction_forces(solver)

    println("$name: vx0 = $vx0 m/s, nc = $nc")
    println("  ", rpad("outcome", 22), ": ", Int(result), " (", result, ")")
    println("  ", rpad("iterations", 22), ": ", stats.num_iterations)
    println("  ", rpad("last |dvt| [m/s]", 22), ": ", @sprintf("%.3g", vt_residual(stats)))
    print_vector("v [m/s, m/s, rad/s]", v)
    print_vector("vn contact 0 [m/s]", vn[1:1])
    print_vector("vt contact 0 [m/s]", vt[1:2])
    print_vector("fn contact 0 [N]", fn[1:1])
    print_vector("ft contact 0 [N]", ft[1:2])
    print_vector("fn total [N]", [sum(fn)])
    print_vector("tau_f [N, N, N m]", get_generalized_friction_forces(solver))
    print_vector("tau [N, N, N m]", get_generalized_contact_forces(solver))
    println("  ", rpad("regime", 22), ": ", abs(vt[1]) < 1e-6 ? "rolling (stiction)" : "sliding")
    return result == kSuccess
end

function main(args)
    isempty(args) || ContactSolvers.load_library(args[1])
    println("contact_solvers $(ContactSolvers.version()): TAMSI rolling cylinder ",
            "(two-way coupled, dt = 1 ms)\n")
    ok = true
    TamsiSolver(NV) do solver
        set_solver_parameters!(solver, TamsiSolverParameters(stiction_tolerance = 1.0e-6))
        for nc in (1, 4, 16, 64, 256)
            ok &= solve_step(solver, "stiction after impact", 0.5, nc)
        end
        # A second, independent solver: a copy of the first's parameters.
        sliding = clone(solver)
        try
            ok &= solve_step(sliding, "sliding after impact", 0.7, 1)
        finally
            close(sliding)
        end
    end
    return ok ? 0 : 1
end

exit(main(ARGS))
