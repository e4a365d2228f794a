"""Parallel attempts at one prompt, each in a working copy of its own."""
