"""Language servers after edits: a small LSP client (rpc), the servers agentui knows (servers), one running server
(server), the new diagnostics an edit brought (diagnostics), and the session's set of servers (manager)."""
