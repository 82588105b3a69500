function cts_expect_error(id, pattern, f)
  % Fails unless calling f raises an error with identifier id whose message matches pattern.
  try
    f();
  catch err
    cts_equal_to('error identifier', err.identifier, id);
    if isempty(regexp(err.message, pattern, 'once'))
      error('message "%s" does not match "%s"', err.message, pattern);
    end
    return;
  end
  error('no error raised (expected %s)', id);
end
