"""What the model sees: the system prompt, memory files, token counting, compaction and summaries, titles."""
