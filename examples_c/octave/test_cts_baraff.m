function test_cts_baraff()
  % Tests of the cts_baraff_mex gateway on docs/baraff.md §11's reference cases, with the spec's
  % tolerances (values printed with six decimals to 1e-6, exact values to 1e-9): B1 (matrix data,
  % stick and slip both ways), B3 (the box: frictionless, friction invariants, saturated friction
  % in 4 pivots), B4 (sliding friction), B5 (the Painleve rod's unbounded ray as an outcome), B5b
  % (the consistency impulse, then the force problem with the velocity-product bias), B6 (the
  % impulse active set), B7 (bilateral pin and contact), and usage errors carrying the library's
  % message. Row kinds by name and by the header's codes (B3d); outcome names are the library's.
  % Prints "N passed, M failed" and exits with status 1 when a check fails.
  %
  % Run: octave-cli --eval "addpath('<folder of cts_baraff_mex.mex>'); test_cts_baraff"
  checks = {@b1_particle_static_friction, @b3_box, @b4_sliding_particle, @b5_painleve_rod, ...
            @b5b_consistency_impulse_then_forces, @b6_impulses, @b7_pin_and_contact, @usage_errors};
  cts_run_checks(checks);
end

function g = G()
  g = 9.81;
end

function row = normal_row(r)
  % §11: the vertical row of a body point at offset r from the centre of mass.
  row = [0, 1, r(1)];
end

function row = tangent_row(r)
  row = [1, 0, -r(2)];
end

function b1_particle_static_friction()
  % B1: a particle on the ground, mu_s = 0.5, m = 1, pushed with F_x: A = I, b = (-9.81, F_x).
  d = struct('A', eye(2), 'kind', {{'normal', 'friction'}}, 'normal', [0; 1], 'mu', [0; 0.5]);
  cases = {3, 9.81, -3, 0, 'C'; 6, 9.81, -4.905, 1.095, 'S-'; -6, 9.81, 4.905, -1.095, 'S+'};
  for k = 1:size(cases, 1)
    [fx, fn, ft, at, set] = cases{k, :};
    d.b = [-G(); fx];
    r = cts_baraff_mex('solve', d);
    cts_equal_to('outcome', r.outcome, 0);
    cts_equal_to('outcome_name', r.outcome_name, 'ok');
    cts_near('B1 f', r.f, [fn; ft], 1e-9);
    cts_near('B1 a', r.a, [0; at], 1e-9);
    cts_equal_to('B1 sets', r.set_names, {'C'; set});
    if r.worst_violation > 1e-12
      error('worst_violation %g', r.worst_violation);
    end
  end
end

function b3_box()
  % B3: a box 1 m x 0.5 m, m = 1, I = (1 + 0.25)/12, corners at r = (-+0.5, -0.25).
  left = [-0.5, -0.25];
  right = [0.5, -0.25];
  M = diag([1, 1, 1.25 / 12]);
  % B3a, frictionless: f = (4.905, 4.905), a = 0 (the rows by the header's code, from a name).
  d = struct('M', M, 'J', [normal_row(left); normal_row(right)], 'tau', [0; -G(); 0], ...
             'kind', {{'normal', 'normal'}});
  r = cts_baraff_mex('solve', d);
  cts_near('B3a f', r.f, [4.905; 4.905], 1e-9);
  cts_near('B3a qdd', r.generalized, zeros(3, 1), 1e-9);
  % B3b, mu_s = 0.5, 2 N at the centre: N_L = 4.405, N_R = 5.405, frictions sum to -2, a = 0.
  d.J = [normal_row(left); normal_row(right); tangent_row(left); tangent_row(right)];
  d.kind = {'normal', 'normal', 'friction', 'friction'};
  d.normal = [0; 0; 1; 2];
  d.mu = [0; 0; 0.5; 0.5];
  d.tau = [2; -G(); 0];
  r = cts_baraff_mex('solve', d);
  cts_equal_to('B3b outcome', r.outcome, 0);
  cts_near('B3b normals', r.f(1:2), [4.405; 5.405], 1e-9);
  cts_near('B3b friction sum', r.f(3) + r.f(4), -2, 1e-9);
  cts_near('B3b a', r.a, zeros(4, 1), 1e-9);
  cts_equal_to('B3b pivots', r.pivots, 3);
  % B3c, 6 N: both frictions saturate at -mu N_i, a_t = 1.095, sets (C, C, S-, S-), 4 pivots.
  d.tau = [6; -G(); 0];
  r = cts_baraff_mex('solve', d);
  cts_near('B3c f', r.f, [3.67875; 6.13125; -1.839375; -3.065625], 1e-9);
  cts_near('B3c a', r.a, [0; 0; 1.095; 1.095], 1e-9);
  cts_equal_to('B3c set_names', r.set_names, {'C'; 'C'; 'S-'; 'S-'});
  cts_equal_to('B3c pivots', r.pivots, 4);
  cts_near('B3c generalized change', r.generalized_change, d.J' * r.f ./ diag(M), 1e-12);
  % B3d, frictionless, 8 N upwards at the right corner: it lifts.
  d = struct('M', M, 'J', [normal_row(left); normal_row(right)], 'tau', [0; -G() + 8; right(1) * 8], ...
             'kind', {{'normal', 'normal'}});
  r = cts_baraff_mex('solve', d);
  cts_near('B3d left normal', r.f(1), 6.179412, 1e-6);
  cts_equal_to('B3d right normal', r.f(2), 0);
  cts_near('B3d a_R', r.a(2), 8.738824, 1e-6);
  cts_equal_to('B3d set_names', r.set_names, {'C'; 'NC'});
  % The numeric code of 'normal' is whatever the header says: of the codes 0..3 exactly one
  % reproduces the named rows here (bilateral rows would pull the lifting corner down; friction
  % and boxed rows need data this problem does not have).
  matches = 0;
  for code = 0:3
    try
      rc = cts_baraff_mex('solve', setfield(d, 'kind', [code; code]));
      if rc.outcome == 0 && isequal(rc.f, r.f) && isequal(rc.sets, r.sets)
        matches = matches + 1;
      end
    catch
    end
  end
  cts_equal_to('codes that reproduce the named kind', matches, 1);
end

function b4_sliding_particle()
  % B4: a particle sliding +x, mu_d = 0.3: f_n = 9.81, friction -2.943, q_dd = (-2.943, 0).
  d = struct('M', eye(2), 'J', [0 1], 'tau', [0; -G()], 'kind', {{'normal'}}, 'Q', [1 0], 'mu_d', 0.3);
  r = cts_baraff_mex('solve', d);
  cts_equal_to('outcome', r.outcome, 0);
  cts_near('B4 f_n', r.f, 9.81, 1e-9);
  cts_near('B4 sliding friction', r.sliding_friction, -2.943, 1e-9);
  cts_near('B4 qdd', r.generalized, [-2.943; 0], 1e-9);
end

function [M, jn, jt, r] = painleve_rod()
  % B5: a uniform rod of length 1, m = 1, I = 1/12, its lower end on the ground at 30 degrees.
  th = 30 * pi / 180;
  r = [-0.5 * cos(th), -0.5 * sin(th)];
  M = diag([1, 1, 1 / 12]);
  jn = normal_row(r);
  jt = tangent_row(r);
end

function b5_painleve_rod()
  % B5: (mu_d, slip direction, outcome, f_n): sliding left with mu_d = 3 is Painleve's
  % inconsistent case, an unbounded ray (row 1, f = 0); the other two solve.
  [M, jn, jt] = painleve_rod();
  rays = 0;
  for c = {3.0, -1, 0, true; 0.3, -1, 3.429724, false; 3.0, 1, 1.372582, false}'
    [mu_d, slip, f_n, ray] = c{:};
    d = struct('M', M, 'J', jn, 'tau', [0; -G(); 0], 'kind', {{'normal'}}, 'Q', slip * jt, 'mu_d', mu_d);
    r = cts_baraff_mex('solve', d);
    cts_near('B5 f_n', r.f, f_n, 1e-6);
    if ray
      rays = rays + 1;
      if r.outcome == 0 || isempty(regexp(r.outcome_name, 'unbounded', 'once'))
        error('outcome %d "%s"', r.outcome, r.outcome_name);
      end
      cts_equal_to('B5 ray row', r.row, 1);
      cts_equal_to('B5 ray f', r.f, 0);
    else
      cts_equal_to('B5 outcome', r.outcome, 0);
      cts_equal_to('B5 row', r.row, 0);
    end
  end
  cts_equal_to('unbounded rays', rays, 1);
end

function b5b_consistency_impulse_then_forces()
  % B5b: the consistency impulse for mu = 3, 30 degrees, sliding left at 1 m/s: (P_n, P_t) =
  % (0.324760, 0.8125), q_dot+ = (-0.1875, 0.324760, 0.75); then the static-friction force problem
  % with the velocity-product bias -w^2 r: f = (4.151250, 2.942321); without it (4.291875, 3.185891).
  [M, jn, jt, rr] = painleve_rod();
  d = struct('M', M, 'J', [jn; jt], 'level', 'velocity', 'qdot', [-1; 0; 0], ...
             'kind', {{'normal', 'friction'}}, 'normal', [0; 1], 'mu', [0; 3], 'sticking_normal', 1);
  r = cts_baraff_mex('consistency', d);
  cts_equal_to('outcome', r.outcome, 0);
  cts_near('(P_n, P_t)', r.f, [0.324760; 0.812500], 1e-6);
  cts_near('|P_t|/P_n', r.f(2) / r.f(1), 2.5019, 1e-4);
  cts_near('post-impulse contact velocities', r.a, [0; 0], 1e-9);
  cts_near('q_dot+', r.generalized, [-0.1875; 0.324760; 0.75], 1e-6);
  cts_near('delta q_dot', r.generalized_change, [0.8125; 0.324760; 0.75], 1e-6);
  w = r.generalized(3);
  f = rmfield(d, {'level', 'qdot', 'sticking_normal'});
  f.tau = [0; -G(); 0];
  f.bias = [-w^2 * rr(2); -w^2 * rr(1)];
  r = cts_baraff_mex('solve', f);
  cts_near('f with the bias', r.f, [4.151250; 2.942321], 1e-6);
  cts_equal_to('sets', r.set_names, {'C'; 'C'});
  cts_near('a', r.a, [0; 0], 1e-9);
  r = cts_baraff_mex('solve', rmfield(f, 'bias'));
  cts_near('f without the bias', r.f, [4.291875; 3.185891], 1e-6);
end

function b6_impulses()
  % B6: the box with both corners touching, q_dot = (0, -1, 2): the active set takes 2 iterations,
  % p = (0.708333, 0.291667), v+ = 0, q_dot+ = 0; one iteration only stops at the cap with the
  % first iterate p = (0.588235, 0), v+ = (0, -0.823529).
  left = [-0.5, -0.25];
  right = [0.5, -0.25];
  d = struct('M', diag([1, 1, 1.25 / 12]), 'J', [normal_row(left); normal_row(right)], ...
             'level', 'velocity', 'qdot', [0; -1; 2], 'kind', {{'normal', 'normal'}});
  named = cts_baraff_mex('impulses', d);
  cts_equal_to('outcome', named.outcome, 0);
  cts_equal_to('needs_impulse', named.needs_impulse, 1);
  cts_equal_to('iterations', named.iterations, 2);
  cts_near('p', named.f, [0.708333; 0.291667], 1e-6);
  cts_near('v+', named.a, [0; 0], 1e-9);
  cts_near('q_dot+', named.generalized, zeros(3, 1), 1e-9);
  r = cts_baraff_mex('impulses', d, struct('max_impulse_iterations', 1));
  if isempty(regexp(r.outcome_name, 'iteration limit', 'once'))
    error('outcome %d "%s"', r.outcome, r.outcome_name);
  end
  cts_near('iteration 1 p', r.f, [0.588235; 0], 1e-6);
  cts_near('iteration 1 v+', r.a, [0; -0.823529], 1e-6);
  % The pivoting of §3 at the velocity level gives the same impulses.
  r = cts_baraff_mex('solve', d);
  cts_near('pivoting p', r.f, [0.708333; 0.291667], 1e-6);
end

function b7_pin_and_contact()
  % B7: a rod of length 1, m = 1, I = 1/12, pinned at its left end by two bilateral rows, its
  % right end on the ground: pin (0, 4.905), contact 4.905, all a = 0.
  pin = [-0.5, 0];
  tip = [0.5, 0];
  d = struct('M', diag([1, 1, 1 / 12]), 'J', [tangent_row(pin); normal_row(pin); normal_row(tip)], ...
             'tau', [0; -G(); 0], 'kind', {{'bilateral', 'bilateral', 'normal'}});
  r = cts_baraff_mex('solve', d);
  cts_equal_to('outcome', r.outcome, 0);
  cts_near('B7 f', r.f, [0; 4.905; 4.905], 1e-9);
  cts_near('B7 a', r.a, zeros(3, 1), 1e-9);
  cts_near('B7 qdd', r.generalized, zeros(3, 1), 1e-9);
end

function usage_errors()
  d = struct('A', eye(2), 'b', [-G(); 3], 'kind', {{'normal', 'friction'}}, 'normal', [0; 1], 'mu', [0; 0.5]);
  d3 = d;
  d3.kind = {'normal', 'friction', 'normal'};
  d3.normal = [0; 1; 0];
  d3.mu = [0; 0.5; 0];
  cts_expect_error('contact_solvers:dimensionMismatch', 'data.A is 2x2, expected 3x3', @() cts_baraff_mex('solve', d3));
  cts_expect_error('contact_solvers:dimensionMismatch', 'data.normal has 2 entries, expected a vector of 3', ...
                   @() cts_baraff_mex('solve', setfield(d3, 'normal', [0; 1])));
  cts_expect_error('contact_solvers:invalidArgument', 'data.torque is not a field', ...
                   @() cts_baraff_mex('solve', setfield(d, 'torque', 1)));
  cts_expect_error('contact_solvers:invalidArgument', 'data.tau is model data', ...
                   @() cts_baraff_mex('solve', setfield(d, 'tau', 1)));
  cts_expect_error('contact_solvers:invalidArgument', "'bilateral', 'normal', 'friction' or 'boxed'", ...
                   @() cts_baraff_mex('solve', setfield(d, 'kind', {'normal', 'sticky'})));
  cts_expect_error('contact_solvers:invalidArgument', 'the row number 1..m of a normal row', ...
                   @() cts_baraff_mex('solve', setfield(d, 'normal', [0; 0])));
  cts_expect_error('contact_solvers:nullPointer', 'data.normal and data.mu', ...
                   @() cts_baraff_mex('solve', rmfield(d, 'mu')));
  cts_expect_error('contact_solvers:invalidArgument', 'not a parameter', ...
                   @() cts_baraff_mex('solve', d, struct('pivots', 3)));
  cts_expect_error('contact_solvers:invalidArgument', 'usage', @() cts_baraff_mex('pivot', d));
  % The library's own refusals, with its message: a friction row owned by a friction row, a
  % negative mu, the impulse loop on acceleration-level data.
  cts_expect_error('contact_solvers:invalidArgument', 'normal', ...
                   @() cts_baraff_mex('solve', setfield(d, 'normal', [0; 2])));
  cts_expect_error('contact_solvers:invalidArgument', 'mu', ...
                   @() cts_baraff_mex('solve', setfield(d, 'mu', [0; -1])));
  m = struct('M', eye(2), 'J', [0 1], 'tau', [0; -G()], 'kind', {{'normal'}});
  cts_expect_error('contact_solvers:invalidArgument', 'velocity', @() cts_baraff_mex('impulses', m));
end
