"""agentui's benchmarks: `python -m bench` runs them all, prints one JSON line per result and writes RESULTS.md;
`python -m bench.<name>` runs one. Numbers only: the tests never assert timings."""
