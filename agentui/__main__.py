"""`python -m agentui`: the same entry point as the `agentui` command."""

from agentui.cli import main

raise SystemExit(main())
