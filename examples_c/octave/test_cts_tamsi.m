function test_cts_tamsi()
  % Tests of the cts_tamsi_mex gateway against Drake 1.51.1's TamsiSolver reference values
  % (docs/tamsi_cases.md §2, §3.3): the three pizza-saver cases (one-way coupling), the sliding
  % rolling cylinder (two-way coupling), a non-success outcome, and usage errors carrying the
  % library's message. Tolerances of the spec: iteration counts and outcomes exact; vectors
  % |a - b| <= 1e-12 max(1, |b|); residual histories 1e-6 relative above 1e-12 scale.
  % Prints "N passed, M failed" and exits with status 1 when a check fails.
  %
  % Run: octave-cli --eval "addpath('<folder of cts_tamsi_mex.mex>'); test_cts_tamsi"
  checks = {@pizza_small_moment, @pizza_large_moment, @pizza_no_contact, ...
            @cylinder_sliding_two_way, @max_iterations_is_an_outcome, ...
            @library_error_has_id_and_message, @bad_parameter_is_rejected, ...
            @gateway_checks_sizes, @version_string, @batch_equals_single_calls};
  cts_run_checks(checks);
end

% ---------------------------------------------------------------------------------------------

function [M, Jn, Jt, p_star, fn, mu] = pizza_saver(Mz)
  % Drake's PizzaSaver scene (docs/tamsi_cases.md §2.1), theta = pi/5, dt = 1e-3.
  theta = pi / 5;
  c = cos(theta);
  s = sin(theta);
  R_WB = [c, s; -s, c];
  legs = [-sqrt(3) / 2, -0.5; sqrt(3) / 2, -0.5; 0, 1];
  Jt = zeros(6, 3);
  for i = 1:3
    p = R_WB * legs(i, :)';
    Jt(2 * i - 1:2 * i, :) = [1, 0, -p(2); 0, 1, p(1)];
  end
  M = eye(3);
  Jn = zeros(3, 3);
  p_star = 1e-3 * [0; 0; Mz];
  fn = (10 / 3) * ones(3, 1);
  mu = 0.5 * ones(3, 1);
end

function params = pizza_params()
  params = struct('stiction_tolerance', 1e-6, 'relative_tolerance', 1e-4);
end

function close_to(what, got, want)
  got = got(:);
  want = want(:);
  if numel(got) ~= numel(want)
    error('%s: %d entries, want %d', what, numel(got), numel(want));
  end
  bad = abs(got - want) > 1e-12 * max(1, abs(want));
  if any(bad)
    k = find(bad, 1);
    error('%s(%d): got %.17g, want %.17g', what, k, got(k), want(k));
  end
end

function residuals_close(got, want)
  got = got(:);
  want = want(:);
  if numel(got) ~= numel(want)
    error('residuals: %d entries, want %d', numel(got), numel(want));
  end
  floor_ = 1e-12 * max(abs(want));
  for k = 1:numel(want)
    if abs(want(k)) > floor_
      ok = abs(got(k) - want(k)) <= 1e-6 * abs(want(k));
    else
      ok = abs(got(k) - want(k)) <= floor_;
    end
    if ~ok
      error('residuals(%d): got %.17g, want %.17g', k, got(k), want(k));
    end
  end
end

% ---------------------------------------------------------------------------------------------

function pizza_small_moment()
  [M, Jn, Jt, p_star, fn, mu] = pizza_saver(3.0);
  r = cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3, zeros(3, 1), pizza_params());
  cts_equal_to('outcome', r.outcome, 0);
  cts_equal_to('outcome_name', r.outcome_name, 'kSuccess');
  cts_equal_to('iterations', r.iterations, 4);
  residuals_close(r.residuals, [5.1958926280752276e-07, 1.1127960070407821e-07, ...
                                5.6217785618702043e-09, 1.4421571455019692e-11]);
  cts_equal_to('vt_residual', r.vt_residual, r.residuals(end));
  close_to('v', r.v, [1.6e-23, 9.7e-24, 3.6748636983595802e-07]);
  close_to('vt', r.vt, [-3.841278551076122e-08, -3.6547324105126324e-07, ...
                        3.3571550390920833e-07, 1.4947017244318954e-07, ...
                        -2.9730271839844711e-07, 2.1600306860807366e-07]);
  close_to('vn', r.vn, [0, 0, 0]);
  close_to('fn', r.fn, [10 / 3, 10 / 3, 10 / 3]);
  close_to('ft', r.ft, [0.10451565899373869, 0.99440007083967719, -0.91343355236907531, ...
                        -0.40668681963798931, 0.80891789337533648, -0.58771325120168794]);
  close_to('tau_f', r.tau_f, [-1.1e-16, -1.1e-16, -2.9996325132835278]);
  close_to('tau', r.tau, [-1.1e-16, -1.1e-16, -2.9996325132835278]);
  % Drake's assertion: |tau_f(3) - (-Mz)| <= 5e-4 (still accelerating toward creep).
  if abs(r.tau_f(3) + 3.0) > 5e-4
    error('tau_f(3) = %g', r.tau_f(3));
  end
end

function pizza_large_moment()
  [M, Jn, Jt, p_star, fn, mu] = pizza_saver(6.0);
  r = cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3, zeros(3, 1), pizza_params());
  cts_equal_to('outcome', r.outcome, 0);
  cts_equal_to('iterations', r.iterations, 5);
  residuals_close(r.residuals, [1.0391785256150455e-06, 7.7896188078425793e-07, ...
                                0.0017301579144217098, 7.4752740812706438e-08, 1.19e-19]);
  close_to('v', r.v, [-3.5e-21, 5.0e-20, 0.0010000000000000256]);
  close_to('vt', r.vt, [-0.00010452846326765609, -0.00099452189536829876, ...
                        0.0009135454576426243, 0.00040673664307581064, ...
                        -0.00080901699437496818, 0.00058778525229248818]);
  close_to('ft', r.ft, [0.1742141054460882, 1.6575364922804476, -1.5225757627376606, ...
                        -0.67789440512633037, 1.3483616572915724, -0.97964208715411716]);
  close_to('tau_f', r.tau_f, [0, 1.1e-16, -4.9999999999999751]);
  % Drake's assertions: sliding at omega = dt (Mz - 5) / I, friction moment = -5 N m.
  if abs(r.tau_f(3) + 5.0) > 1e-13 || abs(r.v(3) - 1e-3) > 10 * eps
    error('not sliding at the transition moment: tau_f(3) = %.17g, v(3) = %.17g', ...
          r.tau_f(3), r.v(3));
  end
end

function pizza_no_contact()
  [M, ~, ~, p_star] = pizza_saver(6.0);
  r = cts_tamsi_mex('one_way', M, zeros(0, 3), zeros(0, 3), p_star, zeros(0, 1), ...
                    zeros(0, 1), 1e-3, zeros(3, 1));
  cts_equal_to('outcome', r.outcome, 0);
  cts_equal_to('iterations', r.iterations, 1);
  cts_equal_to('residuals', r.residuals, 0);
  cts_equal_to('tau_f', r.tau_f, zeros(3, 1));
  cts_equal_to('size(vt)', size(r.vt), [0, 1]);
  close_to('v', r.v, [0, 0, 0.0060000000000000001]);
end

function [args, v0] = cylinder(vx0)
  % Drake's RollingCylinder scene (docs/tamsi_cases.md §3.1), nc = 1.
  k = 9.0e6;
  d = (1 / sqrt(k)) / 1e-6;
  v0 = [vx0; -3; 0];
  p_star = v0 + 1e-3 * [0; -9; 0];
  args = {eye(3), [0, 1, 0], [1, 0, 1; 0, 0, 0], p_star, k * 1e-3, k, d, 0.1};
end

function cylinder_sliding_two_way()
  [args, v0] = cylinder(0.7);
  r = cts_tamsi_mex('two_way', args{:}, 1e-3, v0, struct('stiction_tolerance', 1e-6));
  cts_equal_to('outcome', r.outcome, 0);
  cts_equal_to('iterations', r.iterations, 8);
  close_to('v', r.v, [0.39890056704148047, 0.0019943295852104109, -0.30109943295851949]);
  close_to('vn', r.vn, 0.0019943295852104109);
  close_to('vt', r.vt, [0.097801134082960983, 0]);
  close_to('fn', r.fn, 3010.9943295852108);
  close_to('ft', r.ft, [-301.09943295851951, 0]);
  close_to('tau', r.tau, [-301.09943295851951, 3010.9943295852108, -301.09943295851951]);
end

function max_iterations_is_an_outcome()
  [args, v0] = cylinder(0.5);
  r = cts_tamsi_mex('two_way', args{:}, 1e-3, v0, ...
                    struct('stiction_tolerance', 1e-6, 'max_iterations', 3));
  cts_equal_to('outcome', r.outcome, 1);
  cts_equal_to('outcome_name', r.outcome_name, 'kMaxIterationsReached');
  cts_equal_to('iterations', r.iterations, 3);
  residuals_close(r.residuals, [0.34483656353839842, 0.16467275087714314, ...
                                1.4616256129493873e-10]);
end

function library_error_has_id_and_message()
  [M, Jn, Jt, p_star, fn, mu] = pizza_saver(3.0);
  % dt < 0: found by the library, reported with its status and message.
  cts_expect_error('contact_solvers:invalidArgument', 'invalid argument: cts_tamsi_solver_solve_with_guess: dt = -0.001 is outside its domain: expected finite and > 0', ...
               @() cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, -1e-3, zeros(3, 1)));
  cts_expect_error('contact_solvers:dimensionMismatch', 'v_guess', ...
               @() cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3, zeros(4, 1)));
end

function bad_parameter_is_rejected()
  [M, Jn, Jt, p_star, fn, mu] = pizza_saver(3.0);
  cts_expect_error('contact_solvers:invalidArgument', 'theta_max', ...
               @() cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3, zeros(3, 1), ...
                                 struct('theta_max', 2.0)));
  cts_expect_error('contact_solvers:invalidArgument', 'not a TAMSI parameter', ...
               @() cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3, zeros(3, 1), ...
                                 struct('stiction', 1e-6)));
end

function gateway_checks_sizes()
  [M, Jn, Jt, p_star, fn, mu] = pizza_saver(3.0);
  cts_expect_error('contact_solvers:dimensionMismatch', 'Jt is 5x3, expected 6x3', ...
               @() cts_tamsi_mex('one_way', M, Jn, Jt(1:5, :), p_star, fn, mu, 1e-3, zeros(3, 1)));
  cts_expect_error('contact_solvers:invalidArgument', 'M must be a real', ...
               @() cts_tamsi_mex('one_way', single(M), Jn, Jt, p_star, fn, mu, 1e-3, zeros(3, 1)));
  cts_expect_error('contact_solvers:invalidArgument', 'usage', ...
               @() cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3));
end

function version_string()
  v = cts_tamsi_mex('version');
  if isempty(regexp(v, '^0\.2\.\d+$', 'once'))
    error('version "%s"', v);
  end
end

function batch_equals_single_calls()
  % cts_tamsi_mex('batch', ...) (docs/c_api.md §1.10): every world's result is the single call's
  % bit for bit, on 0 and 2 threads; a world with a bad dt or bad data is a status struct and the
  % others are solved.
  [M, Jn, Jt, p_star, fn, mu] = pizza_saver(-1.0);
  pizza = struct('M', M, 'Jn', Jn, 'Jt', Jt, 'p_star', p_star, 'fn', fn, 'mu', mu, 'dt', 1e-3, ...
                 'v_guess', zeros(3, 1), 'params', pizza_params());
  [args, v0] = cylinder(0.7);
  cyl = struct('M', args{1}, 'Jn', args{2}, 'Jt', args{3}, 'p_star', args{4}, 'fn0', args{5}, ...
               'stiffness', args{6}, 'dissipation', args{7}, 'mu', args{8}, 'dt', 1e-3, 'v_guess', v0);
  bad_dt = cyl;
  bad_dt.dt = -1;
  bad_mu = pizza;
  bad_mu.mu = -mu;
  single = {cts_tamsi_mex('one_way', M, Jn, Jt, p_star, fn, mu, 1e-3, zeros(3, 1), pizza_params()), ...
            cts_tamsi_mex('two_way', args{:}, 1e-3, v0)};
  for threads = [0, 2]
    r = cts_tamsi_mex('batch', {pizza, bad_dt, cyl, bad_mu}, threads);
    cts_equal_to('batch size', size(r), [1, 4]);
    cts_equal_to('pizza', r{1}, single{1});
    cts_equal_to('cylinder', r{3}, single{2});
    cts_equal_to('bad dt status', r{2}.status, 101);
    if isempty(strfind(r{2}.message, 'dt'))
      error('bad dt message: %s', r{2}.message);
    end
    cts_equal_to('bad mu status', r{4}.status, 101);
  end
  cts_equal_to('empty batch', cts_tamsi_mex('batch', {}, 2), cell(1, 0));
  cts_expect_error('contact_solvers:invalidArgument', 'problems\{2\} has no field dt', ...
                   @() cts_tamsi_mex('batch', {pizza, rmfield(cyl, 'dt')}, 0));
end
