function cts_equal_to(what, got, want)
  % Fails unless got and want are equal (isequal), naming `what`.
  if ~isequal(got, want)
    error('%s: got %s, want %s', what, mat2str(got), mat2str(want));
  end
end
