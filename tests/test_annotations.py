"""GitHub Actions annotations: one workflow command per failing gold case, on its YAML line."""

from __future__ import annotations

import pytest

from pytest_chunkrecall.plugin.workflow_commands import command, escape_property

from .conftest import QUIET, STOREFRONT_CASES, Shop

GOLD = (
    "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 1\n" + STOREFRONT_CASES
)


def annotations(result: pytest.RunResult) -> list[str]:
    return [line for line in result.errlines + result.outlines if line.startswith("::")]


def case_line(shop: Shop, gold: str, case: str) -> int:
    lines = (shop.path / gold).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == f"- id: {case}")


@pytest.fixture
def actions(monkeypatch: pytest.MonkeyPatch, shop: Shop) -> Shop:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    shop.gold(GOLD)
    return shop


def test_each_failing_case_is_one_error_on_its_gold_line(actions):
    result = actions.run()
    result.assert_outcomes(passed=1, failed=4)
    found = annotations(result)
    assert len(found) == 4, found
    line = case_line(actions, "gold/policies.yaml", "refund-window")
    first = next(a for a in found if "refund-window" in a)
    assert first.startswith(
        f"::error file=gold/policies.yaml,line={line},title=chunkrecall split%3A refund-window::"
        "chunkrecall: split"
    )
    assert "\n" not in first and "%0A" in first  # the whole explanation, on one line
    assert "The refund w|indow is 30 days" in first.replace("%0A", "\n")


def test_nothing_is_printed_outside_github_actions_or_when_turned_off(actions, monkeypatch):
    actions.ini("chunkrecall_annotations = off")
    # pytest-github-actions-annotate-failures, when installed, still annotates as it does
    assert [a for a in annotations(actions.run()) if "title=chunkrecall" in a] == []
    actions.ini()
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    assert annotations(actions.run()) == []


def test_a_bad_setting_is_a_usage_error(actions):
    actions.ini("chunkrecall_annotations = always")
    result = actions.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini option chunkrecall_annotations must be one of auto, off, not 'always'" in (
        result.stderr.str()
    )


@pytest.mark.parametrize("name", ["a,b:c%d.yaml"])  # a line break is refused (test_catalogue)
def test_reserved_characters_in_a_gold_file_name_are_escaped(actions, name):
    (actions.path / "gold" / "policies.yaml").unlink()
    actions.gold(GOLD, name=f"gold/{name}")
    result = actions.run()
    result.assert_outcomes(passed=1, failed=4)
    found = annotations(result)
    assert len(found) == 4, found
    escaped = escape_property(f"gold/{name}")
    assert "," not in escaped.removeprefix("gold/") and "\n" not in escaped
    line = case_line(actions, f"gold/{name}", "customs")
    assert any(
        a.startswith(f"::error file={escaped},line={line},title=chunkrecall split%3A customs::")
        for a in found
    ), found


def test_the_escaping_is_the_workflow_command_syntax():
    assert command(
        "error", file="gold/a,b:c%d\r\n.yaml", line=3, title="t: x", message="50%\nnext: line"
    ) == ("::error file=gold/a%2Cb%3Ac%25d%0D%0A.yaml,line=3,title=t%3A x::50%25%0Anext: line")


def test_an_unexpected_pass_is_a_warning(actions):
    gold = actions.path / "gold" / "policies.yaml"
    gold.write_text(
        gold.read_text().replace(
            "    span: The refund window is 30 days\n",
            "    span: The refund window is 30 days\n    xfail: cut in the last release\n",
        )
    )
    gold.write_text(gold.read_text().replace("size: 80, overlap: 0", "size: 200, overlap: 60"))
    result = actions.run()
    assert result.parseoutcomes().get("xpassed") == 1
    found = annotations(result)
    line = case_line(actions, "gold/policies.yaml", "refund-window")
    assert [a for a in found if "refund-window" in a] == [
        f"::warning file=gold/policies.yaml,line={line},title=chunkrecall unexpected pass%3A "
        "refund-window::refund-window was expected to miss (cut in the last release), and it "
        "is now a hit: remove its xfail, or accept the new baseline"
    ]


def accept_then_narrow(shop: Shop, gate: str) -> pytest.RunResult:
    gold = shop.path / "gold" / "policies.yaml"
    gold.write_text(gold.read_text().replace("size: 80, overlap: 0", "size: 200, overlap: 60"))
    shop.ini(f"chunkrecall_gate = {gate}")
    accepted = shop.run("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline")
    assert accepted.ret == 0, accepted.stdout.str()
    assert annotations(accepted) == []  # misses recorded as known misses are not annotated
    gold.write_text(gold.read_text().replace("size: 200, overlap: 60", "size: 80, overlap: 0"))
    return shop.run("--chunkrecall-baseline", "b.json")


def test_a_regression_the_significant_gate_lets_pass_is_a_warning(actions):
    result = accept_then_narrow(actions, "significant")
    assert result.ret == 0
    found = annotations(result)
    assert found and all(a.startswith("::warning ") for a in found), found
    assert any("title=chunkrecall regression%3A refund-window::" in a for a in found)
    assert all("the gate (significant) lets the run pass" in a for a in found)
    line = case_line(actions, "gold/policies.yaml", "refund-window")
    (refund,) = [a for a in found if "refund-window" in a]
    assert refund.startswith(
        f"::warning file=gold/policies.yaml,line={line},title=chunkrecall regression%3A "
        "refund-window::regression (hit at rank "
    )
    assert refund.endswith(
        " in the baseline, now split); with chunkrecall_gate = significant the total decides "
        "whether the run fails; the gate (significant) lets the run pass"
    )


def test_a_regression_under_the_cases_gate_is_an_error(actions):
    result = accept_then_narrow(actions, "cases")
    assert result.ret == 1
    found = annotations(result)
    assert found and all(a.startswith("::error ") for a in found), found


def test_a_reason_that_reads_like_a_regression_is_no_regression(actions):
    """A regression is the baseline's typed change on the case, not words in its reason: a
    gold file's own xfail reason that says "regression (" announces nothing."""
    gold = actions.path / "gold" / "policies.yaml"
    gold.write_text(
        gold.read_text().replace(
            "    span: The refund window is 30 days\n",
            "    span: The refund window is 30 days\n    xfail: regression (cut in 1.2), to fix later\n",
        )
    )
    result = actions.run()
    result.assert_outcomes(passed=1, failed=3, xfailed=1)
    assert [a for a in annotations(result) if "chunkrecall regression" in a] == []


def test_with_annotate_failures_installed_each_case_is_annotated_once(actions, pytester):
    pytest.importorskip("pytest_github_actions_annotate_failures")
    pytester.makepyfile(test_plain="def test_plain():\n    assert 1 == 2\n")
    result = actions.run()  # the plugin is loaded by its entry point, as a user has it
    result.assert_outcomes(passed=1, failed=5)
    found = annotations(result)
    gold = [a for a in found if "gold/policies.yaml" in a]
    assert len(gold) == 4 and all("title=chunkrecall " in a for a in gold), found
    # the other plugin still annotates the plain test, once
    assert len([a for a in found if a.startswith("::error file=test_plain.py")]) == 1, found


@pytest.mark.slow
def test_under_xdist_the_controller_annotates_each_case_once(actions):
    pytest.importorskip("xdist")
    result = actions.pytester.runpytest_subprocess(*QUIET, "-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=1, failed=4)
    found = annotations(result)
    assert len(found) == 4 and len(set(found)) == 4, found
