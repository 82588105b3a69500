function cts_run_checks(checks)
  % Runs the check functions of a gateway's test script (test_cts_*.m): prints "ok   <name>" or
  % "FAIL <name>: <message>" per check, then "N passed, M failed", and exits with status 1 when a
  % check failed.
  passed = 0;
  failed = 0;
  for k = 1:numel(checks)
    name = func2str(checks{k});
    try
      checks{k}();
      passed = passed + 1;
      printf('ok   %s\n', name);
    catch err
      failed = failed + 1;
      printf('FAIL %s: %s\n', name, err.message);
    end
  end
  printf('%d passed, %d failed\n', passed, failed);
  if failed > 0
    exit(1);
  end
end
