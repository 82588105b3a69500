function test_cts_rigid()
  % Tests of the cts_rigid_mex gateway on docs/rigid_cases.md's Rod2D cases (a rod of mass 2,
  % J = 1, half-length 1; M = diag(2, 2, 1)), with the spec's tolerances (eps_ = 100 eps) and
  % values: §2.1 single-point sticking (LCP in 4 pivots; M or its inverse), §2.2 two-point
  % sticking (LCP and linear system), §2.5 sliding plus bilateral (both sliding directions; default
  % and Drake HEAD switches), §3.2 impact and sticking (LCP in 3 pivots), §3.7 bilateral only,
  % §4.4 the discretized step (Drake HEAD's LCP matrix), and usage errors carrying the library's
  % message. Outcome names are the library's (cts_status_string).
  % Prints "N passed, M failed" and exits with status 1 when a check fails.
  %
  % Run: octave-cli --eval "addpath('<folder of cts_rigid_mex.mex>'); test_cts_rigid"
  checks = {@accel_single_point_sticking, @accel_two_point_lcp_and_linear, ...
            @accel_sliding_plus_bilateral, @impact_two_point_sticking, @impact_bilateral_only, ...
            @discretized_sliding_plus_bilateral, @usage_errors};
  cts_run_checks(checks);
end

function e = eps_()
  e = 100 * eps;  % the constraint-solver tests' tolerance
end

function p = drake_head()
  p = struct('drake_inverse_inertia_blocks', 1, 'drake_limit_row_transpose', 1, ...
             'drake_double_gamma', 1, 'drake_empty_fast_exit', 1);
end

function [N, F, Q] = rows(theta, ends)
  % §1: the rows of the end points k = -1 (pa), +1 (pb) listed in `ends`, rod at angle theta
  % with its centre at the origin: normal [0, 1, r_x], tangent [1, 0, -r_y], Q = tangent.
  N = zeros(0, 3);
  F = zeros(0, 3);
  for k = ends
    r = k * [cos(theta), sin(theta)];
    N = [N; 0, 1, r(1)];
    F = [F; 1, 0, -r(2)];
  end
  Q = F;
end

function accel_single_point_sticking()
  % §2.1: the vertical rod (contact pa), mu = 15, a horizontal force hf at the contact point:
  % sticking forces fF = -hf; fN = 19.62 (kN = 0) or 39.24 (kN = -9.81).
  [N, F] = rows(pi / 2, -1);
  for hf = [100, -100]
    d = struct('M', diag([2 2 1]), 'tau', [hf; -19.62; hf], 'N', N, 'F', F, ...
               'mu_non_sliding', 15, 'r', 1);
    d.kN = 9.81;
    r = cts_rigid_mex('constraint', d);
    cts_equal_to('outcome', r.outcome, 0);
    cts_equal_to('outcome_name', r.outcome_name, 'ok');
    if norm(r.cf) >= eps
      error('kN = 9.81: norm(cf) = %g', norm(r.cf));
    end
    for kn_fn_ga = [0, 19.62, 0; -9.81, 39.24, 9.81]'
      d.kN = kn_fn_ga(1);
      r = cts_rigid_mex('constraint', d);
      tol = eps_() * numel(r.cf);
      cts_near('friction', r.cf(2), -hf, tol);
      cts_near('norm(ga)', norm(r.acceleration), kn_fn_ga(3), tol);
      cts_near('[ref] cf', r.cf, [kn_fn_ga(2); -hf], 1e-9);
      % The generalized force of cf: (N)'fN + F'fF.
      cts_near('generalized', r.generalized, N' * r.cf(1) + F' * r.cf(2), 1e-12);
    end
  end
  % The kN = 0, push-right LCP (the 1e-17 angular terms round away) and Moby's 4 pivots.
  d.tau = [100; -19.62; 100];
  d.kN = 0;
  r = cts_rigid_mex('constraint', d);
  MM = [0.5 0 0 0; 0 1.5 -1.5 1; 0 -1.5 1.5 1; 15 -1 -1 0];
  cts_equal_to('lcp_size', r.lcp_size, 4);
  cts_near('lcp_matrix', r.lcp_matrix, MM, 1e-15);
  cts_near('lcp_vector', r.lcp_vector, [-9.81; 150; -150; 0], 1e-12);
  cts_near('[ref] z', r.z, [19.62; 0; 100; 0], 1e-12);
  cts_equal_to('[ref] pivots', r.pivots, 4);
  cts_near('w', r.w, r.lcp_matrix * r.z + r.lcp_vector, 1e-12);
  % The same problem with M's inverse instead of M.
  d = rmfield(d, 'M');
  d.M_inverse = diag([0.5 0.5 1]);
  r = cts_rigid_mex('constraint', d);
  cts_near('cf from M^-1', r.cf, [19.62; -100], 1e-9);
end

function accel_two_point_lcp_and_linear()
  % §2.2: the horizontal rod, mu_static = 15, pushed with 100 N: the normals carry the weight
  % (9.81 each), friction sums to -100; [ref] the LCP puts it on the first contact (9 pivots),
  % the linear system's minimum-norm solution splits it.
  [N, F] = rows(0, [-1, 1]);
  d = struct('M', diag([2 2 1]), 'tau', [100; -19.62; 0], 'N', N, 'F', F, ...
             'mu_non_sliding', [15; 15], 'r', [1; 1]);
  r = cts_rigid_mex('constraint', d);
  tol = eps_() * numel(r.cf);
  cts_near('normal sum', sum(r.cf(1:2)), 19.62, tol);
  cts_near('friction sum', sum(r.cf(3:4)), -100, tol);
  if norm(r.acceleration) >= tol
    error('norm(ga) = %g', norm(r.acceleration));
  end
  cts_near('[ref] LCP cf', r.cf, [9.81; 9.81; -100; 0], 1e-12);
  cts_equal_to('[ref] pivots', r.pivots, 9);
  d.use_complementarity_problem_solver = 0;
  r = cts_rigid_mex('constraint', d);
  cts_near('[ref] linear-system cf', r.cf, [9.81; 9.81; -50; -50], 1e-12);
  cts_equal_to('no LCP', r.lcp_size, 0);
end

function accel_sliding_plus_bilateral()
  % §2.5: the vertical rod sliding (x' = +-1) with mu = 0.1 and a bilateral constraint on the
  % angular acceleration G = [0, 0, 1]: cf = (19.62, +-1.962), then kG = 1 makes it -1:
  % (19.62, 0.962) right, (19.62, -2.962) left. The same in Drake HEAD's mode.
  [N, ~, Q] = rows(pi / 2, -1);
  for params = {struct(), drake_head()}
    for s = [1, -1]
      d = struct('M', diag([2 2 1]), 'tau', [0; -19.62; 0], 'N', N, 'N_minus_muQ', N - 0.1 * s * Q, ...
                 'sliding_contacts', 1, 'mu_sliding', 0.1, 'G', [0 0 1], 'kG', 0);
      r = cts_rigid_mex('constraint', d, params{1});
      cts_equal_to('len(cf)', numel(r.cf), 2);
      cts_near('fN', r.cf(1), 19.62, eps_());
      if r.acceleration(3) >= eps_() * 2
        error('ga(3) = %g', r.acceleration(3));
      end
      cts_near('[ref] cf', r.cf, [19.62; s * 1.962], 1e-12);
      d.kG = 1;
      r = cts_rigid_mex('constraint', d, params{1});
      cts_near('ga(3) with kG = 1', r.acceleration(3), -1, eps_() * 2);
      cts_near('[ref] cf with kG = 1', r.cf, [19.62; -1 + s * 1.962], 1e-12);
    end
  end
end

function impact_two_point_sticking()
  % §3.2: the horizontal rod impacting while sliding right, v = (1, -1, 0), mu = 15: it stops;
  % [ref] cf = (1, 1, -2, 0) with z = (1, 1, 0, 0, 2, 0, 0, 0) in 3 pivots; kN = -1 rebounds.
  [N, F] = rows(0, [-1, 1]);
  M = diag([2 2 1]);
  v0 = [1; -1; 0];
  d = struct('M', M, 'Mv', M * v0, 'N', N, 'F', F, 'mu', [15; 15], 'r', [1; 1], 'kN', [1; 1]);
  r = cts_rigid_mex('impact', d);
  if norm(r.cf) >= eps
    error('kN = 1: norm(cf) = %g', norm(r.cf));
  end
  d.kN = [0; 0];
  r = cts_rigid_mex('impact', d);
  cts_equal_to('outcome', r.outcome, 0);
  if norm(v0 + r.velocity_change) >= eps_()
    error('the rod does not stop: %s', mat2str(v0 + r.velocity_change));
  end
  cts_near('[ref] cf', r.cf, [1; 1; -2; 0], 1e-12);
  cts_near('lcp_vector', r.lcp_vector, [-1; -1; 1; 1; -1; -1; 0; 0], 1e-15);
  cts_near('[ref] z', r.z, [1; 1; 0; 0; 2; 0; 0; 0], 1e-12);
  cts_equal_to('[ref] pivots', r.pivots, 3);
  cts_equal_to('regularization_used', r.regularization_used, 0);
  cts_near('generalized impulse', r.generalized, N' * r.cf(1:2) + F' * r.cf(3:4), 1e-12);
  d.kN = [-1; -1];
  r = cts_rigid_mex('impact', d);
  vp = v0 + r.velocity_change;
  cts_near('rebound', vp(2), 1, eps_());
  if vp(1) >= eps_() || vp(3) >= eps_()
    error('v+ = %s', mat2str(vp));
  end
  cts_near('[ref] cf rebound', r.cf, [2; 2; -2; 0], 1e-12);
end

function impact_bilateral_only()
  % §3.7: the rod in the air, no contacts, one bilateral constraint G = [0, 0, 1], kG = 1:
  % nothing is complementary (a 0x0 LCP), cf = (-1) and the rod turns at -1 rad/s.
  d = struct('M', diag([2 2 1]), 'Mv', zeros(3, 1), 'G', [0 0 1], 'kG', 1);
  r = cts_rigid_mex('impact', d);
  cts_equal_to('outcome', r.outcome, 0);
  cts_near('[ref] cf', r.cf, -1, 1e-15);
  cts_near('v(3) + gv(3)', r.velocity_change(3), -1, eps_() * numel(r.cf));
  cts_equal_to('lcp_size', r.lcp_size, 0);
end

function discretized_sliding_plus_bilateral()
  % §4.4: the vertical rod at rest, mu = 0.1, Mv = (+-2, -19.62 dt, 0), the bilateral constraint
  % of §2.5, dt = 1e-4: cf = (19.62, -+1.962, +-1.962) with the bilateral torque cancelling the
  % friction's; kG = 1 turns the rod at -1 rad/s in one step. With Drake HEAD's switches the
  % updated LCP shows W = M^-1 (quirk Q1) and [ref] z = (19.62, 0, 1.962, 0.9997057), 3 pivots.
  dt = 1e-4;
  [N, F] = rows(pi / 2, -1);
  for params = {struct(), drake_head()}
    for s = [1, -1]
      d = struct('M', diag([2 2 1]), 'Mv', [2 * s; -19.62 * dt; 0], 'N', N, 'F', F, 'mu', 0.1, 'r', 1, ...
                 'gammaN', 0, 'gammaF', 0, 'gammaE', 0, 'G', [0 0 1], 'kG', 0, 'v', zeros(3, 1));
      r = cts_rigid_mex('discretized', d, dt, params{1});
      cts_equal_to('outcome', r.outcome, 0);
      cts_equal_to('len(cf)', numel(r.cf), 3);
      cts_near('torques cancel', r.cf(2) + r.cf(3), 0, 10 * eps);
      cts_near('fN', r.cf(1), 19.62, eps_());
      cts_near('friction', r.cf(2), -s * 1.962, eps_());
      if r.acceleration(3) >= eps_() * 3
        error('ga(3) = %g', r.acceleration(3));
      end
      if s == 1 && isfield(params{1}, 'drake_inverse_inertia_blocks')
        MM = [5e-5 0 0 0; 0 1.5e-4 -1.5e-4 1; 0 -1.5e-4 1.5e-4 1; 0.1 -1 -1 0];
        cts_near('Drake HEAD LCP matrix', r.lcp_matrix, MM, 1e-18);
        cts_near('lcp_vector', r.lcp_vector, [-9.81e-4; 1; -1; 0], 1e-15);
        cts_near('[ref] z', r.z, [19.62; 0; 1.962; 0.9997057], 1e-7);
        cts_equal_to('[ref] pivots', r.pivots, 3);
      end
      d.kG = 1;
      r = cts_rigid_mex('discretized', d, dt, params{1});
      cts_near('ga(3) dt', r.acceleration(3) * dt, -1, eps_() * 3);
    end
  end
end

function usage_errors()
  [N, F] = rows(0, [-1, 1]);
  d = struct('M', diag([2 2 1]), 'tau', [0; -19.62; 0], 'N', N, 'F', F, 'mu_non_sliding', [15; 15], 'r', [1; 1]);
  cts_expect_error('contact_solvers:dimensionMismatch', 'data.F is 2x2, expected 2x3', ...
                   @() cts_rigid_mex('constraint', setfield(d, 'F', F(:, 1:2))));
  cts_expect_error('contact_solvers:invalidArgument', 'data.Mv is not a field', ...
                   @() cts_rigid_mex('constraint', setfield(d, 'Mv', zeros(3, 1))));
  cts_expect_error('contact_solvers:invalidArgument', 'contact numbers are integers 1..nc', ...
                   @() cts_rigid_mex('constraint', setfield(d, 'sliding_contacts', 0)));
  cts_expect_error('contact_solvers:invalidArgument', 'exactly one of data.M and data.M_inverse', ...
                   @() cts_rigid_mex('constraint', setfield(d, 'M_inverse', eye(3))));
  cts_expect_error('contact_solvers:nullPointer', 'data.tau \(3 entries\) is required', ...
                   @() cts_rigid_mex('constraint', rmfield(d, 'tau')));
  % The library's own refusals, with its message.
  cts_expect_error('contact_solvers:invalidArgument', 'mu', ...
                   @() cts_rigid_mex('constraint', setfield(d, 'mu_non_sliding', [15; -1])));
  v = struct('M', diag([2 2 1]), 'Mv', [2; -2; 0], 'N', N, 'F', F, 'mu', [1; 1], 'r', [1; 1]);
  cts_expect_error('contact_solvers:invalidArgument', 'dt', @() cts_rigid_mex('discretized', v, 0));
  cts_expect_error('contact_solvers:invalidArgument', 'not a parameter', ...
                   @() cts_rigid_mex('impact', v, struct('drake_mode', 1)));
  cts_expect_error('contact_solvers:invalidArgument', 'usage', @() cts_rigid_mex('simulate', v));
end
