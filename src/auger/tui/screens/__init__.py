"""Modal screens: pickers (model, thread, history search) and the first-run screen."""
