"""Which YAML files become gold files, and how their cases appear as pytest items."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.gold import slug

ONE_CASE = """
    corpus: {corpus}
    cases:
      - question: {question}
        needle: 30 days
"""


def gold(shop, name: str, question: str = "What is the refund window?", corpus: str = "") -> None:
    depth = name.count("/")
    shop.gold(
        ONE_CASE.format(corpus=corpus or "../" * depth + "docs/*.md", question=question), name
    )


def collected(result: pytest.RunResult) -> list[str]:
    """The node ids ``--collect-only -q`` lists."""
    return [line for line in result.outlines if "::" in line]


def test_yaml_files_inside_gold_folders_at_any_depth_are_collected(shop):
    gold(shop, "gold/top.yaml")
    gold(shop, "gold/nested/inner.yml")
    gold(shop, "services/search/gold/deep.yaml")
    gold(shop, "fixtures/not_gold.yaml")
    gold(shop, "golden/neither.yaml")
    shop.write("gold/notes.txt", "not a gold file")
    result = shop.run("--collect-only", "-q")
    assert sorted(collected(result)) == [
        "gold/nested/inner.yml::what-is-the-refund-window",
        "gold/top.yaml::what-is-the-refund-window",
        "services/search/gold/deep.yaml::what-is-the-refund-window",
    ]
    assert result.ret == pytest.ExitCode.OK  # the other YAML files were not read as gold


def test_chunkrecall_gold_replaces_the_default(shop):
    gold(shop, "gold/default.yaml")
    gold(shop, "questions/chosen.yaml")
    gold(shop, "questions/more/also.yml")
    shop.ini(
        """
        chunkrecall_gold =
            questions/*.yaml
            questions/**/*.yml
        """
    )
    result = shop.run("--collect-only", "-q")
    assert sorted(collected(result)) == [
        "questions/chosen.yaml::what-is-the-refund-window",
        "questions/more/also.yml::what-is-the-refund-window",
    ]


def test_a_gold_file_named_on_the_command_line_is_always_collected(shop):
    gold(shop, "elsewhere/adhoc.yaml")
    gold(shop, "gold/policies.yaml")
    for ini in ("", "chunkrecall_gold = nothing/*.yaml"):
        shop.ini(ini)
        result, report = shop.report("elsewhere/adhoc.yaml")
        result.assert_outcomes(passed=1)
        assert [(c["nodeid"], c["outcome"]) for c in report["cases"]] == [
            ("elsewhere/adhoc.yaml::what-is-the-refund-window", "passed")
        ]


def test_other_yaml_files_do_not_disturb_a_python_test_run(shop):
    shop.write("config/app.yaml", "not: [a gold file")  # would be a YAML error if read
    shop.pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = shop.run()
    result.assert_outcomes(passed=1)
    assert result.ret == 0


def test_node_ids_are_gold_file_and_case_id(shop):
    shop.gold(
        """
        corpus: ../docs/*.md
        cases:
          - id: refund-window
            question: What is the refund window?
            needle: 30 days
          - question: How long does express shipping take?
            needle: 2 business days
        """
    )
    result = shop.run("--collect-only", "-q")
    assert collected(result) == [
        "gold/policies.yaml::refund-window",
        "gold/policies.yaml::how-long-does-express-shipping-take",
    ]


@given(st.text(min_size=1, max_size=200))
def test_slug_is_lowercase_words_joined_by_dashes(question):
    words = "".join(ch if (ch.isalnum() or ch == "_") else " " for ch in question.lower()).split()
    full = "-".join(words)
    made = slug(question)
    if not full:
        assert made == "case"
        return
    assert len(made) <= 60 or "-" not in full[:61]
    assert full.startswith(made)
    # cut only between words
    assert made == full or full[len(made)] == "-"


@pytest.fixture
def three_cases(shop):
    shop.gold(
        """
        corpus: ../docs/*.md
        chunker_args: {size: 80, overlap: 0}
        retriever: rag:keywords
        k: 1
        cases:
          - id: refund
            question: refund window
            needle: 30 days
          - id: restocking
            question: restocking fee
            needle: 15 percent
          - id: warranty
            question: warranty coverage
            needle: 12 months
            span: Warranty coverage runs 12 months
        """
    )
    return shop


def test_dash_k_selects_cases_by_id(three_cases):
    result = three_cases.run("-k", "restocking")
    result.assert_outcomes(passed=1, deselected=2)


def test_dash_x_stops_at_the_first_miss(three_cases):
    result, report = three_cases.report("-x")
    result.assert_outcomes(failed=1)  # refund, the first case, failed; the other two never ran
    assert [(c["id"], c["outcome"]) for c in report["cases"]] == [("refund", "failed")]


def test_last_failed_reruns_only_the_misses(three_cases):
    first = three_cases.run()
    first.assert_outcomes(passed=1, failed=2)
    again = three_cases.run("--lf", "-v")
    again.assert_outcomes(failed=2)
    again.stdout.no_fnmatch_line("*::restocking*")


def test_dash_p_no_chunkrecall_disables_the_plugin(three_cases):
    result = three_cases.run("-p", "no:chunkrecall")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.no_fnmatch_line("*chunkrecall:*")


def test_junitxml_names_each_case(three_cases):
    result = three_cases.run("--junitxml=junit.xml")
    result.assert_outcomes(passed=1, failed=2)
    xml = (three_cases.path / "junit.xml").read_text()
    assert 'name="restocking"' in xml
    assert xml.count("<failure") == 2


def test_a_gold_pattern_that_matches_nothing_is_said(shop):
    shop.ini("chunkrecall_gold = golden/*.yaml\n")
    result = shop.run()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        ["*chunkrecall_gold pattern 'golden/*.yaml' matches no file under *"]
    )


def test_yaml_in_a_gold_folder_that_is_no_gold_file_is_left_alone(shop):
    """A snapshot test's expected response, in tests/gold/, is not the plugin's business."""
    shop.gold("status: 200\nexpected:\n  refund_days: 30\n", name="tests/gold/api_response.yaml")
    shop.gold("- one\n- two\n", name="tests/gold/list.yaml")
    shop.gold(
        "corpus: ../docs/policies.md\ncases:\n  - {id: fee, question: fee, needle: 15 percent}\n"
    )
    result = shop.run()
    result.assert_outcomes(passed=1)
    assert "api_response" not in result.stdout.str()


def test_a_near_miss_of_cases_is_still_a_gold_file_with_a_did_you_mean(shop):
    shop.gold("corpus: ../docs/policies.md\ncase:\n  - {question: fee, needle: 15 percent}\n")
    result = shop.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*unknown key 'case' in the gold file; did you mean 'cases'?*"])


def test_a_file_named_in_chunkrecall_gold_is_always_collected(shop):
    shop.gold("expected: 1\n", name="checks/odd.yaml")
    shop.ini("chunkrecall_gold = checks/*.yaml\n")
    result = shop.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*checks/odd.yaml:1: unknown key 'expected'*"])
