"""Transports move messages, not meaning: stdio, in-memory (and HTTP as an extra)."""
