"""``rspbench stream stats``: a stream read as a spec reads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rspbench.cli import main
from pytest_rspbench.spec.resources import data_dir

CSRBENCH = data_dir() / "csrbench" / "stream"


def test_the_bundled_turtle_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """CSRBench's data_NN.ttl files start with @prefix: Turtle, one file per second."""
    argv = ["stream", "stats", "rspbench-data:csrbench/stream/data_*.ttl"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"34 turtle files {CSRBENCH}/data_*.ttl: 15188 triples in 34 events" in out
    assert "time 0 .. 33000 ms (span 33000 ms)" in out


def test_one_turtle_file_is_one_event(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stream", "stats", str(CSRBENCH / "data_02.ttl")]) == 0
    out = capsys.readouterr().out
    assert "in 1 events" in out and "time 2000 .. 2000 ms (span 0 ms), all at one time" in out


def test_the_streams_of_a_spec(spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stream", "stats", str(spec), "--param", "temp=90"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"<http://example.org/s> ntriples-ts file {spec.parent}/tiny.nt:")
    assert "60 triples in 60 events" in out


def test_the_bundled_turtle_stream_of_a_bundled_spec(
    capsys: pytest.CaptureFixture[str],
) -> None:
    specs = Path(__file__).resolve().parents[2] / "specs"
    assert main(["stream", "stats", str(specs / "csrbench" / "q2.rspbench.yaml")]) == 0
    assert "15188 triples in 34 events" in capsys.readouterr().out


def test_a_timestamped_file_by_its_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.n3t"
    path.write_text(
        '<http://ex/a> <http://ex/p> "1" "1000" .\n<http://ex/b> <http://ex/p> "2" "3000" .\n'
    )
    assert main(["stream", "stats", str(path)]) == 0
    assert "2 triples in 2 events" in capsys.readouterr().out


def test_a_glob_read_as_lines_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stream", "stats", str(tmp_path / "s_*.n3t")]) == 1
    assert "HINT: give --format turtle" in capsys.readouterr().err


def test_param_is_for_specs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stream", "stats", str(CSRBENCH / "data_02.ttl"), "--param", "a=1"]) == 1
    assert "--param selects a case of a spec" in capsys.readouterr().err


def test_a_spec_param_typo_names_the_parameters(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stream", "stats", str(spec), "--param", "tmp=80"]) == 1
    assert "did you mean 'temp'?" in capsys.readouterr().err


def test_generate_into_a_closed_pipe_ends_quietly() -> None:
    """``rspbench stream generate ... | head -1``: no BrokenPipeError traceback."""
    argv = [sys.executable, "-c", "from pytest_rspbench.cli import main; raise SystemExit(main())"]
    argv += ["stream", "generate", "yabench-sg1", "--set", "stations=2000", "--quiet"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"<http://knoesis.wright.edu/ssw/")
        process.stdout.close()
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err
