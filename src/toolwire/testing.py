"""pytest helpers for testing toolwire servers (a pytest plugin, loaded automatically)."""
