"""`solace-conformance`: replay a transcript corpus on Spark, or generate one.

    solace-conformance run [--master local[*]] INPUT... --out DIR [--min-pass 0.95]
    solace-conformance generate --count N --seed S --out DIR [--local-failover SHARE]
    solace-conformance grade --runbook NAME INPUT... --out DIR
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

import click

T = TypeVar("T")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Conformance jobs for solace-shell transcripts (PySpark)."""


@main.command("run")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out", required=True, help="Output directory (local path or any Hadoop URI).")
@click.option("--master", default=None,
              help="Spark master (local[*], spark://host:7077, yarn, ...). "
                   "Default: spark-submit's --master, else local[*].")
@click.option("--min-pass", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="Exit 1 when the pass rate is below this.")
@click.option("--gate", "gate_of", type=click.Choice(["transcripts", "commands"]), default="transcripts",
              show_default=True, help="Which pass rate --min-pass applies to (quarantined transcripts fail).")
@click.option("--partitions", type=click.IntRange(1, 100000), default=None,
              help="Replay partitions (default: two per core, more over 4,096 files each; results never depend on it).")
@click.option("--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Extra Spark configuration.")
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr (only drawn on a terminal).")
def run_cmd(inputs: tuple[str, ...], out: str, master: str, min_pass: float, gate_of: str, partitions: int | None,
            confs: tuple[str, ...], progress: bool) -> None:
    """Replay transcripts (files, directories, globs; any Hadoop path) and write results to --out."""
    from .job import RunOptions, run  # noqa: PLC0415
    from .summary import render_text  # noqa: PLC0415

    conf = spark_conf(confs)
    opts = RunOptions(inputs=list(inputs), out=out, master=master, min_pass=min_pass,
                      gate_of=gate_of, partitions=partitions, progress=progress,
                      spark_conf=conf)
    result = run_or_exit(lambda: run(opts), out)
    click.echo(render_text(result.summary))
    click.echo(f"wrote {out}  ({result.run_info['commands_per_second']} commands/s, "
               f"{result.run_info['wall_seconds']} s)")
    if not result.ok:
        sys.exit(1)



def spark_conf(confs: tuple[str, ...]) -> dict[str, str]:
    """`--conf KEY=VALUE` options as Spark settings; anything else is click's usage error."""
    conf = {}
    for item in confs:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--conf")
        conf[key] = value
    return conf


def run_or_exit(job: Callable[[], T], out: str) -> T:
    """Run a Spark job; a failure is one line on stderr and the exit status that says which kind:
    2 unusable input, the signal's status when interrupted (the output left as it was), 130 for
    SIGINT before the job could take signals over (the session's start-up), 3 Spark's own failure
    (a lost executor, a full disk). Never a traceback."""
    from .interrupt import Interrupted  # noqa: PLC0415
    from .job import InputError, MissingDependency  # noqa: PLC0415

    try:
        return job()
    except (InputError, MissingDependency) as exc:
        click.echo(f"solace-conformance: {exc}", err=True)
        sys.exit(2)
    except Interrupted as exc:
        click.echo(f"solace-conformance: {exc}: the job was cancelled; {out} is as it was", err=True)
        sys.exit(exc.exit_status)
    except KeyboardInterrupt:
        click.echo(f"solace-conformance: interrupted (SIGINT) before the job started; {out} is as it was", err=True)
        sys.exit(130)
    except Exception as exc:
        click.echo(f"solace-conformance: the job failed: {failure_line(exc)}", err=True)
        sys.exit(3)

def failure_line(exc: Exception) -> str:
    """One line for a failed run. A Java exception comes through Py4J as "An error occurred while
    calling o123.runJob." then ": org.apache.spark.SparkException: Job aborted due to stage failure: ..."
    on the next line: that line, the JVM's own, is the one that says what happened."""
    lines = str(exc).strip().splitlines()
    java = next((line[2:] for line in lines[1:] if line.startswith(": ")), None)
    line = java if java else f"{type(exc).__name__}: {lines[0] if lines else ''}"
    if any(sign in line for sign in _SESSION_ENDED):
        line += " (the Spark application ended before the job: Spark's ERROR line above says why)"
    return line


# How a job fails when its application was ended under it, e.g. by a standalone --master that never
# answered (Spark gives up after about a minute and logs "Application has been killed. Reason: All
# masters are unresponsive! Giving up." at ERROR, which the job's log configuration always shows).
_SESSION_ENDED = ("Cannot call methods on a stopped SparkContext", "because SparkContext was shut down")


@main.command("grade")
@click.option("--runbook", "runbook", required=True, metavar="NAME|FILE",
              help="A bundled runbook's name or a runbook file.")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out", required=True, help="Output directory (local path or any Hadoop URI).")
@click.option("--master", default=None, help="Spark master (default: spark-submit's --master, else local[*]).")
@click.option("--partitions", type=click.IntRange(1, 100000), default=None,
              help="Grading partitions (default: two per core; results never depend on it).")
@click.option("--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Extra Spark configuration.")
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr (only drawn on a terminal).")
def grade_cmd(runbook: str, inputs: tuple[str, ...], out: str, master: str | None, partitions: int | None,
              confs: tuple[str, ...], progress: bool) -> None:
    """Grade transcripts (files, directories, globs; any Hadoop path) against a runbook: per-transcript
    rows in Parquet and a class report in --out."""
    from .grade import GradeOptions, run_grade  # noqa: PLC0415
    from .grade_report import render_grade_text  # noqa: PLC0415

    conf = spark_conf(confs)
    opts = GradeOptions(runbook=runbook, inputs=list(inputs), out=out, master=master, partitions=partitions,
                        progress=progress, spark_conf=conf)
    result = run_or_exit(lambda: run_grade(opts), out)
    click.echo(render_grade_text(result.summary))
    click.echo(f"wrote {out}  ({result.run_info['transcripts_per_second']} transcripts/s, "
               f"{result.run_info['wall_seconds']} s)")


@main.command("generate")
@click.option("--count", type=click.IntRange(1), required=True, help="Number of drills.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), help="Directory for transcripts.")
@click.option("--plan-only", is_flag=True, help="Write the drill plans (JSON) without running the emulator.")
@click.option("--jobs", type=click.IntRange(1), default=None, help="Recording processes (default: all cores).")
@click.option("--system", default="", metavar="NAME",
              help="Drills of a registered HA system (its bundled scenario) instead of the lab's own.")
@click.option("--local-failover", "local_failover", type=click.FloatRange(0.0, 1.0), default=0.0,
              show_default=True, metavar="SHARE",
              help="Share of the drills (0 to 1) run on the two-site-ha lab with a local failover at NY "
                   "(its primary fails after the first traffic; 1: every drill).")
def generate_cmd(count: int, seed: int, out: str, plan_only: bool, jobs: int | None, system: str,
                 local_failover: float) -> None:
    """Write COUNT randomized failover drills as golden transcripts recorded from the engine."""
    from solace_shell.transcript.stopping import sigterm_as_interrupt, stop_signal  # noqa: PLC0415

    from .generate import generate, planners, transcripts_in  # noqa: PLC0415

    try:
        with sigterm_as_interrupt():
            if system and system not in planners():
                raise click.BadParameter(f"{system!r}: the HA systems with drills are: "
                                         f"{', '.join(planners()) or 'none'}", param_hint="--system")
            if system and local_failover:
                raise click.BadParameter("a local failover is added to the lab's own drills only",
                                         param_hint="--local-failover")
            written = generate(count=count, seed=seed, out=out, plan_only=plan_only, jobs=jobs, system=system,
                               local_failover=local_failover)
    except KeyboardInterrupt as interruption:  # Ctrl-C or SIGTERM
        stopped_by = stop_signal(interruption)
        click.echo(f"solace-conformance: interrupted ({stopped_by.name}): {transcripts_in(out):,} of {count:,} "
                   f"drills are in {out} (its index lists all {count:,})", err=True)
        sys.exit(128 + stopped_by)
    click.echo(f"wrote {len(written)} files to {out}")


if __name__ == "__main__":  # pragma: no cover
    main()
