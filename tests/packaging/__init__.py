"""Tests of the frozen app (skipped unless a bundle is built)."""
