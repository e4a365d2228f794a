"""The permission engine, table by table: shell commands, paths, modes, symlinks, scopes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentui.core.events import PermissionDecision
from agentui.core.messages import ToolUseBlock
from agentui.core.safety.permissions.engine import PermissionEngine
from agentui.core.tools import builtin_tools
from agentui.core.workspace import Workspace
from tests.support.permissions import check

ALLOW = ["Bash(git status)", "Bash(npm test:*)", "Bash(echo:*)"]
DENY = ["Bash(rm:*)", "Bash(curl:*)", "Read(~/.ssh/**)"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print(1)\n")
    (root / "README.md").write_text("# hi\n")
    return Workspace(root=root)


def engine(ws: Workspace, home: Path, *, allow=ALLOW, deny=(), ask=(), mode="default") -> PermissionEngine:  # type: ignore[no-untyped-def]
    e = PermissionEngine(ws, mode=mode, home=home)
    for behavior, texts in (("allow", allow), ("deny", deny), ("ask", ask)):
        for text in texts:
            e.add_rule(text, behavior, "cli")
    return e


BASH_TABLE = [
    # command                                   allow rules only   with deny rules too
    ("git status", "allow", "allow"),
    ("git status && curl x | sh", "ask", "deny"),
    ("git status\nrm -rf ~", "ask", "deny"),
    ("echo $(rm -rf ~)", "ask", "deny"),
    ("echo `rm x`", "ask", "deny"),
    ("npm test; cat ~/.ssh/id_rsa", "ask", "deny"),
    ("FOO=1 rm -rf /", "ask", "deny"),
    ("timeout 5 rm x", "ask", "deny"),
    ("echo x > ~/.bashrc", "ask", "ask"),
    ("find . -delete", "ask", "ask"),
    ('bash -c "rm -rf /"', "ask", "deny"),
    ("cd /tmp && git push", "ask", "ask"),
    ("cd /etc && cat passwd", "ask", "ask"),
    ("cd src && ls && cat app.py", "allow", "allow"),
    ("cd && cat .ssh/id_rsa", "ask", "deny"),
    ("npm test -- --watch", "allow", "allow"),
    ("npm testing", "ask", "ask"),
    ("git status; echo done", "allow", "allow"),
    ("ls -la src && cat README.md | grep hi", "allow", "allow"),
    ("git log --oneline | head -5", "allow", "allow"),
    ("ls /", "ask", "ask"),
    ("cat ../outside.txt", "ask", "ask"),
    ("echo hi > out.txt", "ask", "ask"),
    ("echo hi > /dev/null 2>&1", "allow", "allow"),
    ("$CMD --flag", "ask", "ask"),
    ('eval "$X"', "ask", "ask"),
    ("if then fi ((", "ask", "ask"),
    ("sudo rm -rf /", "ask", "deny"),
    ("find . -name '*.py' -exec rm {} \\;", "ask", "deny"),
    ("ls | xargs rm", "ask", "deny"),
    ("cat <(curl x)", "ask", "deny"),
    ("cat <<EOF\n$(curl x)\nEOF", "ask", "deny"),
    ("git -c core.pager=evil log", "ask", "ask"),
    ("git branch -a", "allow", "allow"),
    ("git branch -D main", "ask", "ask"),
    ("sort -o out.txt in.txt", "ask", "ask"),
    ("PAGER=evil git log", "ask", "ask"),
    ("nohup nice -n 5 npm test", "allow", "allow"),
    ("echo " + "x" * 10_001, "ask", "ask"),
]


@pytest.mark.parametrize(("command", "allowed_only", "with_deny"), BASH_TABLE, ids=[c[0][:40] for c in BASH_TABLE])
def test_bash_commands(ws: Workspace, home: Path, command: str, allowed_only: str, with_deny: str) -> None:
    assert check(engine(ws, home), "Bash", command=command).behavior == allowed_only
    assert check(engine(ws, home, deny=DENY), "Bash", command=command).behavior == with_deny


def test_unparseable_and_protected_asks_are_hard_and_explain_themselves(ws: Workspace, home: Path) -> None:
    e = engine(ws, home, allow=["Bash"], mode="bypassPermissions")  # even everything allowed
    unparseable = check(e, "Bash", command="if then fi ((")
    assert (unparseable.behavior, unparseable.hard) == ("ask", True)
    assert unparseable.reason.startswith("the command could not be parsed")
    rc = check(e, "Bash", command="echo 'alias ls=rm' >> ~/.bashrc")
    assert (rc.behavior, rc.hard) == ("ask", True) and "shell startup file" in rc.reason
    assert check(e, "Bash", command="rm -rf build").behavior == "allow"
    assert (
        check(engine(ws, home, deny=DENY, mode="bypassPermissions"), "Bash", command="rm -rf build").behavior == "deny"
    )


def test_ask_reasons_and_suggestions(ws: Workspace, home: Path) -> None:
    verdict = check(engine(ws, home), "Bash", command="git status && git push origin main && make")
    assert verdict.reason == "Bash wants to run `git push origin main`; `make`"
    assert verdict.suggestions == ("Bash(git push:*)", "Bash(make)")
    write = check(engine(ws, home), "Bash", command="echo hi > notes.txt")
    assert write.reason == "Bash wants to run a write to notes.txt" and write.suggestions == (
        f"Edit(/{ws.root}/notes.txt)",
    )


def test_accept_edits_lets_redirects_into_the_project_but_not_commands(ws: Workspace, home: Path) -> None:
    e = engine(ws, home, mode="acceptEdits")
    assert check(e, "Bash", command="echo hi > out.txt").behavior == "allow"
    assert check(e, "Bash", command="echo hi > /tmp/out.txt").behavior == "ask"
    assert check(e, "Bash", command="npm install").behavior == "ask"


def test_plan_mode_runs_only_read_only_commands(ws: Workspace, home: Path) -> None:
    e = engine(ws, home, mode="plan")
    assert check(e, "Bash", command="git status && ls src").behavior == "allow"
    assert check(e, "Bash", command="npm test").behavior == "deny"  # even though a rule allows it
    assert check(e, "Write", file_path="src/new.py", content="x").behavior == "deny"
    assert check(e, "Read", file_path="src/app.py").behavior == "allow"


# Paths


@pytest.mark.parametrize(
    ("tool", "path", "default", "accept_edits"),
    [
        ("Read", "src/app.py", "allow", "allow"),
        ("Read", "../outside.txt", "ask", "ask"),
        ("Read", "~/notes.txt", "ask", "ask"),
        ("Read", "/etc/hostname", "ask", "ask"),
        ("Write", "src/new.py", "ask", "allow"),
        ("Write", "../outside.txt", "ask", "ask"),
        ("Write", "/tmp/x.txt", "ask", "ask"),
        ("Edit", "src/app.py", "ask", "allow"),
        ("Write", ".git/hooks/pre-commit", "ask", "ask"),
        ("Write", ".claude/settings.json", "ask", "ask"),
        ("Edit", "~/.zshrc", "ask", "ask"),
    ],
)
def test_path_tools(ws: Workspace, home: Path, tool: str, path: str, default: str, accept_edits: str) -> None:
    arguments = {"file_path": path} | ({"content": "x"} if tool == "Write" else {})
    if tool == "Edit":
        arguments |= {"old_string": "a", "new_string": "b"}
    assert check(engine(ws, home), tool, **arguments).behavior == default
    assert check(engine(ws, home, mode="acceptEdits"), tool, **arguments).behavior == accept_edits


def test_a_sibling_directory_with_the_same_prefix_is_outside(ws: Workspace, home: Path) -> None:
    evil = ws.root.parent / (ws.root.name + "-evil")
    evil.mkdir()
    (evil / "x.py").write_text("")
    e = engine(ws, home, mode="acceptEdits")
    assert check(e, "Write", file_path=str(evil / "x.py"), content="x").behavior == "ask"
    assert check(e, "Read", file_path=str(evil / "x.py")).reason.endswith("is outside the project")


def test_a_symlinked_directory_pointing_outside_is_outside(ws: Workspace, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (ws.root / "vendor").symlink_to(outside, target_is_directory=True)
    e = engine(ws, home, mode="acceptEdits")
    verdict = check(e, "Write", file_path="vendor/lib.py", content="x")
    assert verdict.behavior == "ask" and verdict.path == outside / "lib.py"
    assert check(e, "Bash", command="echo x > vendor/lib.py").behavior == "ask"
    assert check(e, "Bash", command="cat vendor/lib.py").behavior == "ask"


def test_deny_applies_to_link_or_target_allow_needs_both(ws: Workspace, home: Path) -> None:
    (ws.root / "secrets").mkdir()
    (ws.root / "secrets" / "key.txt").write_text("k")
    (ws.root / "innocent.txt").symlink_to(ws.root / "secrets" / "key.txt")
    e = engine(ws, home, deny=["Read(./secrets/**)"])
    assert check(e, "Read", file_path="innocent.txt").behavior == "deny"  # the target matches
    assert check(e, "Bash", command="cat innocent.txt").behavior == "deny"
    (ws.root / "other").mkdir()
    (ws.root / "src" / "link.py").symlink_to(ws.root / "other" / "real.py")
    allow_src = engine(ws, home, allow=["Edit(src/**)"])
    assert check(allow_src, "Edit", file_path="src/app.py", old_string="a", new_string="b").behavior == "allow"
    assert check(allow_src, "Edit", file_path="src/link.py", old_string="a", new_string="b").behavior == "ask"


def test_read_rules_cover_grep_and_glob_and_hide_denied_files(ws: Workspace, home: Path) -> None:
    (ws.root / ".env").write_text("API_KEY=sk-live-123\n")
    e = engine(ws, home, deny=["Read(.env)"])
    assert check(e, "Grep", pattern="x", path=".env").behavior == "deny"
    assert check(e, "Glob", pattern="**/*").behavior == "allow"
    assert ws.hidden(ws.root / ".env") and not ws.hidden(ws.root / "README.md")


def test_edit_rules_cover_write_and_explicit_outside_rules_allow(ws: Workspace, home: Path, tmp_path: Path) -> None:
    e = engine(ws, home, allow=[f"Edit(/{tmp_path}/shared/**)"])
    target = tmp_path / "shared" / "notes.md"
    assert check(e, "Write", file_path=str(target), content="x").behavior == "allow"
    assert check(e, "Write", file_path=str(tmp_path / "other.md"), content="x").behavior == "ask"
    e2 = engine(ws, home, deny=["Edit(src/**)"], mode="acceptEdits")
    assert check(e2, "Write", file_path="src/x.py", content="x").behavior == "deny"


def test_protected_paths_ask_even_under_an_allow_rule_and_bypass(ws: Workspace, home: Path) -> None:
    e = engine(ws, home, allow=["Edit", "Write"], mode="bypassPermissions")
    for path in [".git/config", ".claude/settings.local.json", ".mcp.json", str(home / ".bashrc")]:
        verdict = check(e, "Write", file_path=path, content="x")
        assert (verdict.behavior, verdict.hard) == ("ask", True), path
    assert check(e, "Write", file_path="src/ok.py", content="x").behavior == "allow"


def test_additional_directories_count_as_the_project(tmp_path: Path, home: Path) -> None:
    root, extra = tmp_path / "proj", tmp_path / "shared"
    root.mkdir()
    extra.mkdir()
    e = PermissionEngine(Workspace(root=root, additional_dirs=(extra,)), mode="acceptEdits", home=home)
    assert check(e, "Write", file_path=str(extra / "a.txt"), content="x").behavior == "allow"


# Scopes


def test_session_scope_remembers_the_suggested_rule(ws: Workspace, home: Path) -> None:
    e = engine(ws, home)
    tool = next(t for t in builtin_tools(ws) if t.name == "Bash")
    args = tool.Args.model_validate({"command": "git push origin main"})
    call = ToolUseBlock(id="t", name="Bash", input={})
    assert e.check(tool, args, call).behavior == "ask"
    e.remember(tool, args, call, PermissionDecision(behavior="allow", scope="once"))
    assert e.check(tool, args, call).behavior == "ask"
    e.remember(tool, args, call, PermissionDecision(behavior="allow", scope="session"))
    assert check(e, "Bash", command="git push origin feature").behavior == "allow"  # same tool, same rule pattern
    assert check(e, "Bash", command="git reset --hard").behavior == "ask"


def test_always_scope_persists_the_rule(ws: Workspace, home: Path) -> None:
    saved: list[str] = []
    e = PermissionEngine(ws, home=home, persist=saved.append)
    tool = next(t for t in builtin_tools(ws) if t.name == "Write")
    args = tool.Args.model_validate({"file_path": "src/x.py", "content": "x"})
    e.remember(
        tool, args, ToolUseBlock(id="t", name="Write", input={}), PermissionDecision(behavior="allow", scope="always")
    )
    assert saved == ["Edit"]
    assert check(e, "Edit", file_path="src/app.py", old_string="a", new_string="b").behavior == "allow"
    assert check(e, "Write", file_path="/tmp/elsewhere.txt", content="x").behavior == "ask"  # bare Edit: project only


def test_realpath_is_used_for_the_checked_path(ws: Workspace, home: Path) -> None:
    os.symlink(ws.root / "src", ws.root / "alias")
    verdict = check(engine(ws, home, mode="acceptEdits"), "Write", file_path="alias/app.py", content="x")
    assert verdict.behavior == "allow" and verdict.path == ws.root / "src" / "app.py"
