function test_cts_lcp()
  % Tests of the cts_lcp_mex gateway: the README's 2x2 LCP with every algorithm, Drake's
  % moby_lcp_solver_test.cc cases "trivial" and "problem 1" (docs/rigid_cases.md §6: pivot
  % counts and solutions), a ray termination returned as an outcome, the options struct and
  % usage errors carrying the library's message. Outcome values are compared with those the
  % gateway reports for the library's own names (cts_status_string), never with copied numbers.
  % Prints "N passed, M failed" and exits with status 1 when a check fails.
  %
  % Run: octave-cli --eval "addpath('<folder of cts_lcp_mex.mex>'); test_cts_lcp"
  checks = {@readme_lcp_every_algorithm, @drake_trivial, @drake_problem1, ...
            @ray_termination_is_an_outcome, @options_are_applied, @usage_errors};
  cts_run_checks(checks);
end

function readme_lcp_every_algorithm()
  M = [2 1; 1 2];
  q = [-5; -6];
  algorithms = {'lemke', 'lemke_regularized', 'fast', 'fast_regularized', 'unrevised_lemke'};
  for k = 1:numel(algorithms)
    r = cts_lcp_mex(algorithms{k}, M, q);
    cts_equal_to([algorithms{k} ' outcome'], r.outcome, 0);
    cts_equal_to([algorithms{k} ' outcome_name'], r.outcome_name, 'ok');
    cts_near([algorithms{k} ' z'], r.z, [4/3; 7/3], 1e-13);
    cts_near([algorithms{k} ' w'], r.w, [0; 0], 1e-13);
    cts_equal_to([algorithms{k} ' verdicts'], [r.drake_verdict, r.residual_test_passed], [1, 1]);
  end
end

function drake_trivial()
  % M = diag(1..9), q = -1: z = 1./(1:9); Fast 9 iterations, Lemke 9 pivots.
  M = diag(1:9);
  q = -ones(9, 1);
  r = cts_lcp_mex('fast', M, q);
  cts_equal_to('fast outcome', r.outcome, 0);
  cts_equal_to('fast pivots', r.pivots, 9);
  cts_near('fast z', r.z, 1 ./ (1:9)', 1e-15);
  r = cts_lcp_mex('lemke', M, q);
  cts_equal_to('lemke pivots', r.pivots, 9);
  cts_near('lemke z', r.z, 1 ./ (1:9)', 1e-15);
end

function drake_problem1()
  % 16x16, ones on the diagonal, twos above, q = -1: Lemke z = e16 in 31 pivots; Fast fails
  % (33 iterations, Drake's zero vector).
  M = eye(16) + triu(2 * ones(16), 1);
  q = -ones(16, 1);
  e16 = [zeros(15, 1); 1];
  r = cts_lcp_mex('lemke', M, q);
  cts_equal_to('lemke outcome', r.outcome, 0);
  cts_equal_to('lemke pivots', r.pivots, 31);
  cts_near('lemke z', r.z, e16, 1e-6);
  r = cts_lcp_mex('fast', M, q);
  if r.outcome == 0
    error('fast must fail on problem 1');
  end
  cts_equal_to('fast pivots', r.pivots, 33);
  cts_near('fast z', r.z, zeros(16, 1), 0);
  if isempty(regexp(r.outcome_name, 'pivot limit', 'once'))
    error('fast outcome_name "%s"', r.outcome_name);
  end
end

function ray_termination_is_an_outcome()
  % w = -z - 1 has no solution: Lemke's ray termination, z = 0 (Drake's failure value).
  r = cts_lcp_mex('lemke', -1, -1);
  if r.outcome == 0 || isempty(regexp(r.outcome_name, 'ray termination', 'once'))
    error('outcome %d "%s"', r.outcome, r.outcome_name);
  end
  cts_equal_to('z', r.z, 0);
  cts_equal_to('drake_verdict', r.drake_verdict, 0);
end

function options_are_applied()
  M = [2 1; 1 2];
  q = [-5; -6];
  r = cts_lcp_mex('fast', M, q, struct('z0', [4/3; 7/3], 'zero_tolerance', 1e-12));
  cts_equal_to('warm-started fast outcome', r.outcome, 0);
  cts_near('zero_tolerance used', r.zero_tolerance, 1e-12, 0);
  cts_near('z', r.z, [4/3; 7/3], 1e-13);
  r = cts_lcp_mex('lemke', M, q, struct('lemke_variant', 1, 'max_pivots', 5));
  cts_near('lexicographic z', r.z, [4/3; 7/3], 1e-13);
end

function usage_errors()
  M = [2 1; 1 2];
  q = [-5; -6];
  cts_expect_error('contact_solvers:invalidArgument', 'finite', @() cts_lcp_mex('lemke', [NaN 1; 1 2], q));
  cts_expect_error('contact_solvers:dimensionMismatch', 'M is 2x2, expected 3x3', ...
               @() cts_lcp_mex('lemke', M, [1; 2; 3]));
  cts_expect_error('contact_solvers:invalidArgument', 'algorithm', @() cts_lcp_mex('simplex', M, q));
  cts_expect_error('contact_solvers:invalidArgument', 'not a parameter', ...
               @() cts_lcp_mex('lemke', M, q, struct('tolerance', 1)));
  cts_expect_error('contact_solvers:invalidArgument', 'step', ...
               @() cts_lcp_mex('lemke_regularized', M, q, struct('lemke_step_exp', 0)));
  cts_expect_error('contact_solvers:invalidArgument', 'M must be a real', ...
               @() cts_lcp_mex('lemke', single(M), q));
end
