"""Run by tests/core/test_mount_helper.py as a user who is not root (nobody, when the tests run as root): a box in
the directory given, attacks on its protected paths under the guard and in the sandbox, and a JSON report of what
got through, on stdout.

    python tests/support/helper_as_user.py DIRECTORY
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.core.test_sandbox_setup import make_box

ATTACKS = {
    "echo evil >> ~/.bashrc": lambda box: (box.home / ".bashrc").read_text() != "# mine\n",
    "echo 'touch pwned' > .git/hooks/pre-commit": lambda box: (box.project / ".git/hooks/pre-commit").exists(),
    "mv .git .g": lambda box: (box.project / ".g").exists(),
    "echo evil > .envrc": lambda box: (box.project / ".envrc").exists(),
}


def main() -> None:
    box = make_box(Path(sys.argv[1]))
    (box.home / ".bashrc").write_text("# mine\n")
    box.snapshot()
    report: dict[str, object] = {"helper": box.guard.mount_helper()}
    for name, guard in (("guard", True), ("sandbox", False)):
        through = []
        for attack, landed in ATTACKS.items():
            box.run(attack, guard=guard)
            if landed(box):
                through.append(attack)
        report[name] = {
            "id": box.run("id -u", guard=guard).out.strip(),
            "attacks": list(ATTACKS),
            "blocked": len(ATTACKS) - len(through),
            "through": through,
            "made": box.run("echo made > made && cat made", guard=guard).out,
        }
    leftovers = box.leftovers()
    if leftovers:
        report["leftovers"] = [str(p) for p in leftovers]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
