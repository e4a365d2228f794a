"""Print mode (`agentui -p`): one prompt answered as text, JSON or a stream of JSON lines, then exit."""
