"""`class serve --web-port`: the class view served beside the SSH listeners by the command itself,
stopped with them; its options' mistakes are one line and serve nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def _serve(class_path: Path, *options: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "class", "serve", str(class_path),
                             "--listen", "127.0.0.1", "--port", "0", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def test_the_class_view_is_served_and_stopped_with_the_class(class_path: Path) -> None:
    server = _serve(class_path, "--web-port", "0")
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith("class view  http://127.0.0.1:"), first
        url = first.split()[2]
        assert httpx.get(url, timeout=30).status_code == 401
        assert httpx.get(url + "login", timeout=30).status_code == 200
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "Traceback" not in err


def test_a_certificate_that_cannot_be_used_is_one_line(class_path: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.pem").write_text("not a certificate\n")
    server = _serve(class_path, "--web-port", "0", "--web-cert", str(tmp_path / "bad.pem"),
                    "--web-key", str(tmp_path / "bad.pem"))
    out, err = server.communicate(timeout=60)
    assert server.returncode == 2
    problems = [line for line in err.splitlines() if line.startswith("solace-shell:")]
    assert len(problems) == 1 and "cannot use the certificate" in problems[0], err
    assert "Traceback" not in err and "ssh -p" not in out


def test_the_web_options_go_together(class_path: Path) -> None:
    for options in (("--web-cert", str(class_path)), ("--web-port", "0", "--web-key", str(class_path)),
                    ("--web-port", "0", "--workers", "2")):
        server = _serve(class_path, *options)
        out, err = server.communicate(timeout=60)
        assert server.returncode == 2, options
        assert "Traceback" not in err and "ssh -p" not in out
