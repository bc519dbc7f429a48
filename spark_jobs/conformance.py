"""spark-submit entry point: `spark-submit [--master ...] spark_jobs/conformance.py run INPUT... --out DIR`.

Same arguments as `solace-conformance`. Under spark-submit, leave the job's own --master out: the
master (and everything else) then comes from spark-submit's options.
"""

from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make the package importable from a source checkout
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from spark_jobs.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
