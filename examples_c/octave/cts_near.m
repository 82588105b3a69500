function cts_near(what, a, b, tol)
  % Fails unless a and b have the same size and differ by at most tol entry by entry.
  if ~isequal(size(a), size(b)) || any(abs(a(:) - b(:)) > tol)
    error('%s: [%s] differs from [%s] by more than %g', what, num2str(a(:)'), num2str(b(:)'), tol);
  end
end
