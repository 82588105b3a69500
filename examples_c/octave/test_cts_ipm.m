function test_cts_ipm()
  % Tests of the cts_ipm_mex gateway on docs/ipm.md §9's point mass (3 dofs, ground z = 0,
  % m = 1 kg, h = 0.1 s, mu = 0.5, at rest on the ground): case A2 sticks under a 3 N push and
  % slips under 6 N, with the spec's impulses and iteration count; an iteration cap returned as
  % an outcome; usage errors carrying the library's message. Outcome names are the library's.
  % Prints "N passed, M failed" and exits with status 1 when a check fails.
  %
  % Run: octave-cli --eval "addpath('<folder of cts_ipm_mex.mex>'); test_cts_ipm"
  checks = {@a2_stick, @a2_slip, @model_codes_and_names_agree, @max_iterations_is_an_outcome, ...
            @usage_errors, @batch_equals_single_calls};
  cts_run_checks(checks);
end

function r = point_mass(force, models, params)
  % One step of the point mass at rest on the ground, pushed with `force` along x.
  M = eye(3);
  Jn = [0 0 1];
  Jt = [1 0 0; 0 1 0];
  tau = [force; 0; -9.81];
  r = cts_ipm_mex(M, Jn, Jt, zeros(3, 1), tau, 0.1, 0, 0.5, models, params);
end

function p = spec_params()
  p = struct('btol', 1e-8, 'rtol', 1e-8, 'dojo_compatible', 1);
end

function a2_stick()
  r = point_mass(3, {'second_order_cone'}, spec_params());
  cts_equal_to('outcome', r.outcome, 0);
  cts_equal_to('outcome_name', r.outcome_name, 'ok');
  cts_equal_to('iterations', r.iterations, 8);  % the spec's fingerprint
  cts_near('v', r.v, [0; 0; 0], 1e-6);
  cts_near('impulses', r.impulses, [0.981; -0.3; 0], 1e-6);  % gamma_n = m g h; friction -F h
  if r.rvio >= 1e-8 || r.bvio >= 1e-8
    error('rvio %g, bvio %g', r.rvio, r.bvio);
  end
end

function a2_slip()
  r = point_mass(6, {'second_order_cone'}, spec_params());
  cts_equal_to('outcome', r.outcome, 0);
  cts_near('v', r.v, [0.1095; 0; 0], 1e-6);
  cts_near('impulses', r.impulses, [0.981; -0.4905; 0], 1e-6);  % friction -mu gamma_n
  cts_near('gaps', r.gaps, 0.1 * r.v(3), 1e-15);
end

function model_codes_and_names_agree()
  % The numeric code of 'second_order_cone' is whatever the header says: find it by trying the
  % three names' codes 0..2 against the named call.
  named = point_mass(6, {'second_order_cone'}, spec_params());
  matches = 0;
  for code = 0:2
    r = point_mass(6, code, spec_params());
    if r.outcome == 0 && max(abs(r.impulses - named.impulses)) == 0
      matches = matches + 1;
    end
  end
  cts_equal_to('codes that reproduce the named model', matches, 1);
end

function max_iterations_is_an_outcome()
  p = spec_params();
  p.max_iter = 1;
  r = point_mass(3, {'second_order_cone'}, p);
  if r.outcome == 0 || isempty(regexp(r.outcome_name, 'iteration', 'once'))
    error('outcome %d "%s"', r.outcome, r.outcome_name);
  end
  cts_equal_to('iterations', r.iterations, 1);
end

function usage_errors()
  cts_expect_error('contact_solvers:invalidArgument', 'finite', @() point_mass(NaN, {'linear'}, struct()));
  cts_expect_error('contact_solvers:invalidArgument', 'second_order_cone', @() point_mass(3, {'cone'}, struct()));
  cts_expect_error('contact_solvers:invalidArgument', 'not a parameter', ...
               @() point_mass(3, {'linear'}, struct('tolerance_x', 1)));
  cts_expect_error('contact_solvers:invalidArgument', 'rtol', @() point_mass(3, {'linear'}, struct('rtol', -1)));
  cts_expect_error('contact_solvers:dimensionMismatch', 'Jt is 1x3, expected 2x3', ...
               @() cts_ipm_mex(eye(3), [0 0 1], [1 0 0], zeros(3, 1), zeros(3, 1), 0.1, 0, 0.5, {'linear'}));
  cts_expect_error('contact_solvers:invalidArgument', 'usage', @() cts_ipm_mex(eye(3)));
end

function batch_equals_single_calls()
  % cts_ipm_mex('batch', ...) (docs/c_api.md §1.10): each world's result is the single call's bit
  % for bit, on 0 and 2 threads; a world with bad data (h < 0) is a status struct, the others
  % are solved.
  problem = @(force, params) struct('M', eye(3), 'Jn', [0 0 1], 'Jt', [1 0 0; 0 1 0], 'v0', zeros(3, 1), ...
                                    'tau', [force; 0; -9.81], 'h', 0.1, 'phi', 0, 'mu', 0.5, ...
                                    'models', {{'second_order_cone'}}, 'params', params);
  stick = problem(3, spec_params());
  slip = problem(6, 'engine');
  bad = stick;
  bad.h = -0.1;
  want = {point_mass(3, {'second_order_cone'}, spec_params()), point_mass(6, {'second_order_cone'}, 'engine')};
  for threads = [0, 2]
    r = cts_ipm_mex('batch', {stick, bad, slip}, threads);
    cts_equal_to('batch size', size(r), [1, 3]);
    cts_equal_to('stick', r{1}, want{1});
    cts_equal_to('slip', r{3}, want{2});
    cts_equal_to('bad h status', r{2}.status, 101);
  end
  cts_expect_error('contact_solvers:invalidArgument', 'problems\{1\} has no field h', ...
                   @() cts_ipm_mex('batch', {rmfield(stick, 'h')}, 0));
end
