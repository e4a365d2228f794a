"""agentui's own protocol on stdio: commands in (`agentui.api.control`, one JSON line each), events out."""
