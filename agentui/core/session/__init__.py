"""Claude Code–compatible sessions: `paths` (where), `writer` (appending), `reader` (resuming), `listing`
(the picker), `store` (choosing and opening the session of a run), `redact` (secrets kept out)."""
