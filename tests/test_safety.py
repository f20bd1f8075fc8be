"""Nothing replaced, nothing lost, nothing hangs: what the plugin does with the paths it is given."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_chunkrecall import files

from .conftest import QUIET, Shop

GOLD = """\
chunker_args: {size: 80, overlap: 24}
cases:
  - id: refund-window
    question: What is the refund window?
    needle: 30 days
"""


@pytest.fixture
def project(shop: Shop) -> Shop:
    shop.ini("chunkrecall_corpus = docs/*.md\n")
    shop.gold(GOLD)
    return shop


def fingerprint(path: Path) -> tuple[int, int, int, bytes]:
    """A path's file type and mode (not followed through a link), inode and content."""
    st = os.lstat(path)
    content = path.read_bytes() if stat.S_ISREG(st.st_mode) else b""
    return stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_ino, content


# -------------------------------------------------------------- what sits at the target


@pytest.mark.parametrize("kind", ["fifo", "char-device", "folder"])
def test_a_target_that_is_no_regular_file_is_refused_before_any_test(project, kind):
    target = project.path / "mynull"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    else:
        try:
            os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device needs root")
    before = fingerprint(target)
    result = project.run("--chunkrecall-report", "mynull")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --chunkrecall-report mynull: it is *not a regular file*"])
    assert fingerprint(target) == before


def test_a_symlink_to_a_stream_is_refused(project):
    (project.path / "out").symlink_to("/proc/self/fd/1")
    result = project.run("--chunkrecall-report", "out")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert os.path.islink(project.path / "out")


def test_a_symlinked_report_is_written_through_and_the_link_stays(project):
    real = project.path / "reports" / "real.json"
    real.parent.mkdir()
    real.write_text('{"chunkrecall_report": 1}')  # an earlier run's
    real.chmod(0o640)
    link = project.path / "report.json"
    link.symlink_to("reports/real.json")
    result = project.run("--chunkrecall-report", "report.json")
    assert result.ret == 0
    assert link.is_symlink() and os.readlink(link) == "reports/real.json"
    assert json.loads(real.read_text())["totals"]["cases"] == 1
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert not list(real.parent.glob(".*.tmp"))


def test_a_symlinked_baseline_stays_a_link(project):
    (project.path / "ci").mkdir()
    (project.path / "ci" / "b.json").write_text("")
    (project.path / "ci" / "b.json").unlink()
    (project.path / "baseline.json").symlink_to("ci/b.json")  # dangling: written through
    result = project.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", "baseline.json")
    assert result.ret == 0, result.stdout.str()
    assert (project.path / "baseline.json").is_symlink()
    assert json.loads((project.path / "ci" / "b.json").read_text())["chunkrecall_baseline"] == 1


def test_a_new_file_gets_the_umask_mode_and_an_old_one_keeps_its_own(tmp_path):
    old_mask = os.umask(0o022)
    try:
        files.write_atomically(tmp_path / "new.json", "{}")
        kept = tmp_path / "kept.json"
        kept.write_text("old")
        kept.chmod(0o600)
        files.write_atomically(kept, "new")
    finally:
        os.umask(old_mask)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o644
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert kept.read_text() == "new"


def test_a_fifo_as_the_baseline_is_a_usage_error_not_a_hang(project):
    os.mkfifo(project.path / "b.json")
    script = (
        "import sys, pytest\n"
        "sys.exit(pytest.main(['-p', 'pytester', '--chunkrecall-baseline', 'b.json']))\n"
    )
    # a subprocess with a deadline: today's code blocks opening the FIFO for ever
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project.path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert (
        "cannot read baseline b.json: it is a FIFO (named pipe), not a regular file" in done.stderr
    )
    assert stat.S_ISFIFO(os.lstat(project.path / "b.json").st_mode)


# -------------------------------------------------------------- writes that fail


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder on a read-only bind mount: refusal that even root meets."""
    source, mounted = tmp_path / "source", tmp_path / "ro"
    source.mkdir()
    mounted.mkdir()
    (source / "report.json").write_text('{"old": true}\n')
    ok = subprocess.run(["mount", "--bind", str(source), str(mounted)], capture_output=True)
    if ok.returncode:
        pytest.skip("cannot make a bind mount here")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(mounted)]).returncode:
            pytest.skip("cannot remount read-only here")
        yield mounted
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


def test_a_report_on_a_read_only_mount_is_refused_up_front(project, read_only_folder):
    target = read_only_folder / "report.json"
    before = fingerprint(target)
    result = project.run("--chunkrecall-report", str(target))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --chunkrecall-report *: * is read-only for this user"])
    assert "written" not in result.stdout.str()
    assert fingerprint(target) == before


def test_a_write_that_fails_at_the_end_is_one_red_line_and_never_written(project, monkeypatch):
    target = project.path / "report.json"
    target.write_text('{"old": true}\n')
    before = fingerprint(target)
    real_fsync = os.fsync

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    result = project.run("--chunkrecall-report", "report.json", "--chunkrecall-force")
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert result.ret == 1
    out = result.stdout.str()
    assert out.count("FAILED: cannot write") == 1
    assert "No space left on device" in out
    assert "report written" not in out
    assert fingerprint(target) == before
    assert not list(project.path.glob(".report.json.*"))


def test_a_full_disk_while_updating_the_baseline_is_a_red_line(project, monkeypatch):
    (project.path / "ci").mkdir()
    baseline = project.path / "ci" / "b.json"
    assert (
        project.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", "ci/b.json").ret == 0
    )
    before = fingerprint(baseline)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    result = project.run("--chunkrecall-update-baseline", "--chunkrecall-baseline", "ci/b.json")
    monkeypatch.undo()
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: FAILED: baseline ci/b.json not written: No space left on device; the file is as it was"
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "cases" not in result.stdout.str().split("FAILED: baseline")[0].split("chunkrecall:")[-1]
    assert fingerprint(baseline) == before


# -------------------------------------------------------------- two writers


def test_two_updates_over_different_gold_files_keep_both(project):
    project.gold(GOLD.replace("refund-window", "second"), name="gold/second.yaml")
    (project.path / "ci").mkdir()
    # Each run marks its arrival before it takes the lock, and writes only once both runs have
    # arrived: the first to hold the lock waits for the second to be waiting on it.
    project.write(
        "conftest.py",
        "import contextlib, os, time\n"
        "import pytest_chunkrecall.baseline.update as u\n"
        "_locked, _write = u.locked, u.write_atomically\n"
        "@contextlib.contextmanager\n"
        "def arriving(path, **options):\n"
        "    open(f'arrived-{os.getpid()}', 'w').close()\n"
        "    with _locked(path, **options) as lock:\n"
        "        yield lock\n"
        "def after_both(path, text):\n"
        "    deadline = time.monotonic() + 60  # a guard against hanging only\n"
        "    while len([n for n in os.listdir('.') if n.startswith('arrived-')]) < 2:\n"
        "        assert time.monotonic() < deadline, 'the other run never came'\n"
        "        time.sleep(0.01)\n"
        "    _write(path, text)\n"
        "u.locked, u.write_atomically = arriving, after_both\n",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "pytest", *QUIET, "-q", gold,
             "--chunkrecall-update-baseline", "--chunkrecall-baseline", "ci/b.json"],
            cwd=project.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )
        for gold in ("gold/policies.yaml", "gold/second.yaml")
    ]  # fmt: skip
    for run in runs:
        out, _ = run.communicate(timeout=120)
        assert run.returncode == 0, out.decode()
    data = json.loads((project.path / "ci" / "b.json").read_text())
    assert sorted(data["gold_files"]) == ["gold/policies.yaml", "gold/second.yaml"]


def test_a_held_lock_times_out_with_a_clear_message(tmp_path):
    target = tmp_path / "b.json"
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with files.locked(target):
            held.set()
            release.wait(60)  # a guard against hanging only

    thread = threading.Thread(target=hold)
    thread.start()
    assert held.wait(60)
    try:
        # Held until the test lets go: the waiting run gives up at its timeout, not at release.
        with (
            pytest.raises(TimeoutError, match=r"another run has held the lock .*\.b\.json\.lock"),
            files.locked(target, timeout=0.3),
        ):
            pass
    finally:
        release.set()
        thread.join()


def test_a_temporary_file_of_a_killed_writer_is_cleaned_by_the_next_write(tmp_path):
    target = tmp_path / "b.json"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = tmp_path / f".b.json.{gone.stdout.strip()}.deadbeef.tmp"
    stale.write_text("half")
    mine = tmp_path / f".b.json.{os.getpid()}.cafe.tmp"  # a live writer's: left alone
    mine.write_text("busy")
    files.write_atomically(target, "{}")
    assert not stale.exists()
    assert mine.exists()
    assert files.clean_stale_temporaries(target) == []


# -------------------------------------------------------------- corpus folders


def test_a_symlink_cycle_under_double_star_is_walked_once_with_a_note(project):
    project.gold("corpus: ../docs/**/*.md\n" + GOLD)
    # Two links back up: glob follows both at every level, 2**40 paths.
    os.symlink("..", project.path / "docs" / "up")
    os.symlink("..", project.path / "docs" / "again")
    # only the gold file: pytest walks the folders too, following the links
    result = project.pytester.runpytest_subprocess(
        *QUIET, "-p", "no:cacheprovider", "gold/policies.yaml", timeout=30
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*CorpusWarning: gold/policies.yaml:1: corpus folder ../docs/again/docs is a symlink "
            "back to ../docs, which is being walked already; skipped"
        ]
    )
    result.assert_outcomes(passed=1, warnings=1)


def test_a_self_looping_corpus_symlink_says_so(project):
    os.symlink("loop.md", project.path / "docs" / "loop.md")
    project.gold("corpus: ../docs/loop.md\n" + GOLD)
    result = project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*corpus pattern '../docs/loop.md' matches no file: ../docs/loop.md is a symlink that leads to itself*"
        ]
    )
    assert "only folders" not in result.stdout.str()


# -------------------------------------------------------------- retrievers and workers


def test_a_chunk_returned_twice_counts_once_at_its_first_rank(project):
    project.write(
        "rag.py",
        "def twice(chunks):\n"
        "    held = next(c.index for c in chunks if '30 days' in c.text)\n"
        "    def search(question, k):\n"
        "        return [0, 0, held, held, 1][:k]\n"
        "    return search\n",
    )
    project.gold("retriever: rag:twice\nk: 3\n" + GOLD)
    result, data = project.report()
    case = data["cases"][0]
    assert case["verdict"] == "hit"
    assert case["rank"] == 2  # chunk 0 came back twice before the one that holds the needle
    assert [view["rank"] for view in case["top"]] == [1, 2]
    assert len({view["index"] for view in case["top"]}) == 2
    result.stdout.fnmatch_lines(
        ["*RetrievalWarning: retriever rag:twice returned the same chunk more than once*"]
    )


def test_a_crashed_worker_keeps_its_case_s_old_entry_and_the_update_says_so(project):
    pytest.importorskip("xdist")
    project.gold(
        GOLD + "  - id: crash\n    question: How long does express shipping take?\n"
        "    needle: 2 business days\n"
    )
    (project.path / "ci").mkdir()
    update = ("--chunkrecall-update-baseline", "--chunkrecall-baseline", "ci/b.json")
    assert project.run(*update).ret == 0
    before = json.loads((project.path / "ci" / "b.json").read_text())
    assert before["gold_files"]["gold/policies.yaml"]["cases"]["crash"]["verdict"] == "hit"
    # the new setup's retriever takes its worker down on one question
    project.write(
        "rag.py",
        "import os\n"
        "from pytest_chunkrecall.retrievers import bm25\n"
        "def crashing(chunks):\n"
        "    search = bm25(chunks)\n"
        "    def crash(question, k):\n"
        "        if 'express' in question:\n"
        "            os._exit(1)\n"
        "        return search(question, k)\n"
        "    return crash\n",
    )
    project.gold(
        "retriever: rag:crashing\n" + (project.path / "gold" / "policies.yaml").read_text()
    )
    result = project.pytester.runpytest_subprocess(
        *QUIET, "-p", "no:cacheprovider", "-n", "2", *update
    )
    out = result.stdout.str()
    assert "crash" in out and "could not be evaluated" in out, out
    # the case has no verdict to put in its entry's place: the old one stays, and is named
    assert "1 case kept from the old baseline: it errored (gold/policies.yaml::crash)" in out
    after = json.loads((project.path / "ci" / "b.json").read_text())
    cases = after["gold_files"]["gold/policies.yaml"]["cases"]
    assert cases["crash"] == before["gold_files"]["gold/policies.yaml"]["cases"]["crash"]
    assert cases["refund-window"]["verdict"] == "hit"


def test_pytest_timeout_fails_a_hanging_case_and_the_summary_and_report_still_come_out(project):
    pytest.importorskip("pytest_timeout")
    project.write(
        "rag.py",
        "import threading\n"
        "from pytest_chunkrecall.retrievers import bm25\n"
        "def hanging(chunks):\n"
        "    search = bm25(chunks)\n"
        "    def hang(question, k):\n"
        "        if 'refund' in question:\n"
        "            threading.Event().wait()  # forever: only pytest-timeout ends it\n"
        "        return search(question, k)\n"
        "    return hang\n",
    )
    project.gold(
        "retriever: rag:hanging\n"
        + GOLD
        + "  - id: express\n    question: How long does express shipping take?\n"
        "    needle: 2 business days\n"
    )
    result = project.pytester.runpytest_subprocess(
        *QUIET,
        "-p",
        "no:cacheprovider",
        "--timeout",
        "2",
        "--chunkrecall-report",
        "r.json",
        timeout=120,  # a guard against hanging only
    )
    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=1)
    assert "Timeout (>2.0s) from pytest-timeout" in result.stdout.str()
    data = json.loads((project.path / "r.json").read_text())
    assert data["unevaluated"] == ["gold/policies.yaml::refund-window"]
    assert (data["totals"]["hits"], data["totals"]["cases"]) == (1, 1)
    assert "chunkrecall: JSON report written to r.json" in result.outlines


def test_an_existing_file_keeps_its_owner_when_root_replaces_it(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file away")
    kept = tmp_path / "r.json"
    kept.write_text("old")
    os.chown(kept, 1234, 4321)
    files.write_atomically(kept, "new")
    assert (kept.stat().st_uid, kept.stat().st_gid) == (1234, 4321)
    assert kept.read_text() == "new"


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs: a real full disk."""
    mounted = tmp_path / "tiny"
    mounted.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mounted)], capture_output=True
    )
    if made.returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mounted
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


def test_a_full_disk_leaves_the_old_file_and_no_temporary(tiny_disk):
    target = tiny_disk / "b.json"
    target.write_text("old\n")
    with pytest.raises(OSError) as raised:
        files.write_atomically(target, "x" * 1_000_000)
    assert raised.value.errno == errno.ENOSPC
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tiny_disk.iterdir()) == ["b.json"]


@pytest.mark.parametrize(
    "pattern",
    ["docs/**/*.md", "**/*.md", "docs/**", "docs/**/b/*.txt", "docs/*/**/*.md", "**/.hidden/*.md",
     "docs/**/[ab].md", "docs/**/?.md", "nowhere/**/*.md"],
)  # fmt: skip
def test_double_star_finds_what_glob_finds_where_there_is_no_cycle(tmp_path, pattern):
    import glob

    from pytest_chunkrecall.corpus import find_files
    from pytest_chunkrecall.errors import ChunkrecallError

    for name in ["docs/a.md", "docs/b/a.md", "docs/b/c/b.md", "docs/b/x.txt", "docs/.hidden/h.md",
                 "docs/b/.h.md", "top.md", "other/d/e.md", "docs/b/c/cc.md"]:  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    os.symlink("../other", tmp_path / "docs" / "linked")  # a link, but no cycle
    expected = sorted(
        {Path(p).resolve() for p in glob.glob(str(tmp_path / pattern), recursive=True)
         if Path(p).is_file()}
    )  # fmt: skip
    try:
        found = find_files([pattern], tmp_path, where="gold/a.yaml:1")
    except ChunkrecallError as exc:  # no file: glob must find none either
        assert not expected, exc
        return
    assert sorted(found) == expected
