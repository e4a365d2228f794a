"""The Agent Client Protocol on stdio, for editors (Zed and others)."""
