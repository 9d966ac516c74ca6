"""`make bench` (bench/run_all.py) reads its goals from bench/README.md and marks every miss."""

import pytest

from bench import run_all

GOALS = run_all.read_goals((run_all.BENCH / "README.md").read_text())


def test_every_goal_names_a_bench_script():
    assert {goal.bench for goal in GOALS} <= set(run_all.bench_scripts())
    assert "loadgen" not in run_all.bench_scripts()  # a helper, not a bench


def test_health_goal_is_read_from_the_readme():
    health = {goal.key: (goal.comparison, goal.value) for goal in GOALS if goal.bench == "health"}
    assert health == {"p99_ms": ("<", 50), "rps": (">=", 190), "errors": ("==", 0)}


def marks(result, why_not=None):
    return {key: ok for _, key, _, _, ok in run_all.rows_for("health", result, why_not, GOALS)}


def test_a_figure_beside_its_goal_is_marked_only_when_missed():
    assert marks({"p99_ms": 9.9, "rps": 200.0, "errors": 0}) == {
        "p99_ms": True,
        "rps": True,
        "errors": True,
    }
    assert marks({"p99_ms": 247.0, "rps": 200.0, "errors": 0})["p99_ms"] is False
    assert marks({"p99_ms": 9.9, "rps": 150.0, "errors": 3})["rps"] is False


def test_a_missing_figure_or_a_bench_that_did_not_run_is_a_miss():
    assert marks({"p99_ms": 9.9, "rps": 200.0})["errors"] is False
    assert marks(None, "exit 1: needs PostgreSQL") == {"-": False}


def test_nested_keys_and_words_compare_as_written():
    goals = run_all.read_goals(
        "```goals\nnotify_clusters shared.http_429 == 0\ngzip_bomb error == too_large\n```\n"
    )
    clusters, bomb = goals
    assert clusters.met_by(run_all.figure({"shared": {"http_429": 0}}, clusters.key))
    assert not clusters.met_by(run_all.figure({"shared": {"http_429": 7}}, clusters.key))
    assert bomb.met_by("too_large") and not bomb.met_by("http_error")


def test_a_malformed_goal_line_is_a_clear_error():
    with pytest.raises(run_all.GoalError, match="line 1"):
        run_all.read_goals("```goals\nhealth p99_ms under 50\n```\n")
