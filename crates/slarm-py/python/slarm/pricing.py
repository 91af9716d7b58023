"""Libra pricing (in progress)."""
