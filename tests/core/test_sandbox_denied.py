"""Files a Read deny rule covers are masked inside the sandbox: whatever a command does to read them (cat, base64, a
copy, a hard link, a symbolic link), nothing of them comes out; and what the engine needs (complete or not, inodes)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentui.core.safety.denied_files import DeniedFinder
from agentui.core.safety.permissions.rules import PathPattern, path_pattern
from tests.core.test_sandbox_setup import Box, boxed


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Box]:
    yield from boxed(tmp_path)


SECRET = "SECRET-VALUE-42"


def deny(box: Box, *specifiers: str) -> list[PathPattern]:
    patterns = [path_pattern(s, project_root=box.project, home=box.home, settings_root=box.project) for s in specifiers]
    box.sandbox.read_denials = lambda: patterns
    return patterns


def test_every_way_of_reading_a_denied_file_gives_nothing(box: Box) -> None:
    (box.project / ".env").write_text(SECRET)
    (box.project / "link-to-env").symlink_to(".env")
    deny(box, "./.env")
    attacks = [
        "cat .env",
        "base64 .env",
        "cp .env copy && cat copy",
        "ln .env hard && cat hard",
        "ln -s .env soft && cat soft",
        "cat link-to-env",
        "python3 -c 'print(open(\".env\").read())'",
        "tar cf - .env | tar xOf -",
        "dd if=.env 2>/dev/null",
    ]
    for attack in attacks:
        done = box.run(attack)
        assert SECRET not in done.text, attack
    assert (box.project / ".env").read_text() == SECRET  # (masked, not touched)


def test_a_pattern_at_any_depth_a_wildcard_and_a_directory_are_masked(box: Box) -> None:
    (box.project / "sub" / "deeper").mkdir(parents=True)
    (box.project / "sub" / "deeper" / ".env").write_text(SECRET + "1")
    (box.project / "keys").mkdir()
    (box.project / "keys" / "a.pem").write_text(SECRET + "2")
    (box.project / "secrets").mkdir()
    (box.project / "secrets" / "token.txt").write_text(SECRET + "3")
    (box.project / "readable.txt").write_text("fine")
    deny(box, ".env", "keys/*.pem", "./secrets/**")
    done = box.run("cat sub/deeper/.env keys/a.pem secrets/token.txt; ls secrets; grep -r SECRET . ; cat readable.txt")
    assert SECRET not in done.text and "fine" in done.out
    found = box.sandbox.denied()
    assert found.complete and box.sandbox.enforces_denies and box.sandbox.denies_problem() is None
    assert set(found.files) == {box.project / "sub/deeper/.env", box.project / "keys/a.pem"}
    assert set(found.directories) == {box.project / "secrets"}


def test_a_denied_path_through_a_link_masks_where_it_leads(box: Box) -> None:
    elsewhere = box.tmp / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "credentials").write_text(SECRET)
    (box.project / "config").symlink_to(elsewhere)
    deny(box, "./config/credentials")
    done = box.run(f"cat config/credentials; cat {elsewhere}/credentials")
    assert SECRET not in done.text
    assert box.sandbox.denied().files == (elsewhere / "credentials",)


def test_a_rule_added_during_the_session_counts_at_the_next_command(box: Box) -> None:
    (box.project / "later.txt").write_text(SECRET)
    rules: list[PathPattern] = []
    box.sandbox.read_denials = lambda: rules
    assert SECRET in box.run("cat later.txt").out
    rules.append(path_pattern("later.txt", project_root=box.project, home=box.home, settings_root=None))
    assert SECRET not in box.run("cat later.txt").text


def test_a_file_created_after_a_walk_is_found_by_the_next(box: Box) -> None:
    deny(box, ".env")
    assert box.sandbox.denied().files == ()
    (box.project / "new").mkdir()
    (box.project / "new" / ".env").write_text(SECRET)
    assert box.sandbox.denied().files == (box.project / "new" / ".env",)
    assert SECRET not in box.run("cat new/.env").text


def test_the_inodes_of_denied_files_are_given_for_the_file_tools(box: Box) -> None:
    (box.project / ".env").write_text(SECRET)
    deny(box, ".env")
    info = os.stat(box.project / ".env")
    assert box.sandbox.denied_inodes == frozenset({(info.st_dev, info.st_ino)})


def test_when_the_walk_cannot_finish_the_sandbox_says_it_does_not_enforce_the_denies(box: Box) -> None:
    for n in range(30):
        (box.project / f"file{n}").write_text("x")
    deny(box, "*.key")
    box.sandbox._finder = DeniedFinder(limit=10)
    assert not box.sandbox.enforces_denies
    problem = box.sandbox.denies_problem()
    assert problem is not None and problem.count(".") <= 2 and "more than 10" in problem


def test_a_denied_file_with_other_hard_links_is_not_fully_enforced(box: Box) -> None:
    (box.project / ".env").write_text(SECRET)
    os.link(box.project / ".env", box.tmp / "other-name")
    deny(box, "./.env")
    assert not box.sandbox.enforces_denies
    assert "hard links" in (box.sandbox.denies_problem() or "")


def test_a_deny_rule_over_the_whole_project_is_not_enforced_by_masking(box: Box) -> None:
    deny(box, "~/**")
    box_home_project = Path(box.home)  # the project is not under this home: denying the home is enforced
    assert box.sandbox.enforces_denies and box_home_project.exists()
    deny(box, "//**")
    assert not box.sandbox.enforces_denies and "holds the project" in (box.sandbox.denies_problem() or "")
