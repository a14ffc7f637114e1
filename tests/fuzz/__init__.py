"""Property-based fuzzing of the stdio and HTTP entry points (Hypothesis)."""
