"""The front ends: each translates between its people or programs and `agentui.api`, and imports nothing else of the
core (tests/core/test_imports.py holds them to it)."""
