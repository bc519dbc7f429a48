"""A class: every trainee (or team) in a lab of their own, the trainer above them all.

- `class_file`: the class file (who, which scenario and runbook, when, which console verbs),
  checked strictly when loaded, every problem at once with its line.
- `record`: the class record (SQLite through SQLAlchemy): every line every trainee runs, from any
  door, committed before its output is shown; exported as a transcript with timing.
- `labs`: each trainee's or team's lab file in the class directory, made at first login.
- `class_lab`: the lab a trainee works in (their own; only the class's console verbs).
- `server`: `solace-shell class serve`, the SSH server of `serve` with one seam: which lab a login
  lands in; trainers get the class console (`console`).
- `grades`: the runbook grade of each trainee from the record (CSV, JSON).
"""
