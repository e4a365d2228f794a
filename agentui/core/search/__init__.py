"""Full-text search over every project's session transcripts (agentui's and Claude Code's): an SQLite FTS5 index in
agentui's state directory, kept up to date from the bytes appended since it last looked."""
