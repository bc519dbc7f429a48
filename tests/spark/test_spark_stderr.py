"""The driver's JVM prints one notice on every start of Spark 4 that no option silences (the
launcher's `--add-modules=jdk.incubator.vector`); the job's sessions pass the JVM's standard error
through a filter that drops exactly that line and forwards everything else (its ERROR logs, the
workers' tracebacks) as it comes. No Spark needed: the filter is fed bytes."""

from __future__ import annotations

import io
import sys

import pytest

from spark_jobs.job import _forward_stderr


def test_the_incubator_notice_is_dropped_and_the_rest_forwarded(monkeypatch: pytest.MonkeyPatch) -> None:
    captured = io.BytesIO()
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(captured, encoding="utf-8", write_through=True))
    jvm = io.BytesIO(b"WARNING: Using incubator modules: jdk.incubator.vector\n"
                     b"26/11/27 21:50:00 ERROR Executor: lost\n"
                     b"WARNING: Using incubator modules: jdk.incubator.vector, other\n"
                     b"\xff not UTF-8\n")
    _forward_stderr(jvm)
    assert captured.getvalue() == (b"26/11/27 21:50:00 ERROR Executor: lost\n"
                                   b"WARNING: Using incubator modules: jdk.incubator.vector, other\n"
                                   b"\xff not UTF-8\n")
