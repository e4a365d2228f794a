"""Claude Code's own headless shapes: its stream-json output and the Agent SDKs' control protocol on stdio."""
