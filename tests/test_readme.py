"""Every shell example in README.md runs, through the installed console script, and prints
what the README shows (see ``tests/readme_examples.py``; ``python tests/readme_examples.py
--update`` rewrites the shown outputs).  The two set-up commands are run by ``.ci/run``."""

from __future__ import annotations

import difflib
import subprocess
import sys

import pytest

from .readme_examples import README, ROOT, examples, matches, run, workspace

EXAMPLES = examples()


@pytest.fixture(scope="module")
def cwd(tmp_path_factory):
    return workspace(tmp_path_factory.mktemp("readme"))


def test_the_readme_has_shell_examples():
    assert len(EXAMPLES) >= 8
    assert any(e.command.startswith("llrlab serve") for e in EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.command[:60] for e in EXAMPLES])
def test_readme_example(example, cwd):
    actual = run(example, cwd)
    # the comparison ignores trailing spaces (README.md has none): the output must not have
    # them either
    padded = [line for line in actual if line != line.rstrip()]
    assert padded == [], f"$ {example.shown}\nprints lines that end with spaces: {padded}"
    if not matches(example.expected, actual):
        diff = "\n".join(difflib.unified_diff(example.expected, actual, "README.md", "actual",
                                              lineterm=""))
        pytest.fail(f"$ {example.shown}\nprints something else than README.md shows:\n{diff}")


def test_text_outputs_show_numbers_with_a_stable_number_of_digits():
    """Text for people shows at most 10 significant digits (model parameters; measures have
    6), so that it is the same on every computer; only ``--json`` prints every digit."""
    from .readme_examples import NUMBER

    def significant(number):
        return len(number.lstrip("+-").lower().split("e")[0].replace(".", "").lstrip("0"))

    for example in EXAMPLES:
        if "--json" in example.command.split():
            continue
        for line in example.expected:
            longest = max((significant(n) for n in NUMBER.findall(line)), default=0)
            assert longest <= 10, f"$ {example.shown}\nshows {line!r}"
    # (the check sees what the README used to show)
    assert significant("21.673122735293877") == 17 and significant("0.000452") == 3


def test_the_readme_names_exactly_two_setup_commands_and_ci_runs_the_test_one():
    sys.path.insert(0, str(ROOT / ".ci"))
    try:
        from readme_commands import setup_commands
    finally:
        sys.path.pop(0)
    cmds = setup_commands(README.read_text(encoding="utf-8"))
    assert cmds == {"main": "pip install . && llrlab serve",
                    "test": 'pip install -e ".[test]" && python -m pytest'}
    ci = (ROOT / ".ci" / "run").read_text()
    assert "readme_commands.py test" in ci and "python3 -m venv" in ci
    out = subprocess.run([sys.executable, str(ROOT / ".ci" / "readme_commands.py"), "test"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == cmds["test"]


def test_readme_and_docs_link_only_inside_the_repository():
    import re

    for path in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#]+)", text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            resolved = (path.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), f"{path.name} links outside: {target}"
            assert resolved.exists(), f"{path.name}: dead link {target}"
        assert "shared/" not in text and "seeds/" not in text


def test_the_matcher_compares_numbers_to_1e_9_and_everything_else_exactly():
    shown = ["llr = 15.695816669208801 * [A] - 2.796373422579664", "EER [%] 5.68013", "..."]
    assert matches(shown, ["llr = 15.695816669208805 * [A] - 2.796373422579665",
                           "EER [%] 5.68013", "more", "lines"])
    assert not matches(shown, ["llr = 15.69583 * [A] - 2.796373422579664",
                               "EER [%] 5.68013"])  # differs at 9e-7 relative
    assert not matches(shown, ["llr = 15.695816669208801 * [B] - 2.796373422579664",
                               "EER [%] 5.68013"])
    assert not matches(["wrote 60000 scores"], ["wrote 60001 scores"])
    assert not matches(["EER [%] 5.68013"], ["EER [%] 5.68014"])
    assert matches(["at http://127.0.0.1:5006/"], ["at http://127.0.0.1:5006/"])
    assert not matches(["at http://127.0.0.1:5006/"], ["at http://127.0.0.2:5006/"])
