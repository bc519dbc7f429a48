"""CLI personalities: each CLI the lab emulates (the Solace router CLI, each HA system's admin
CLI) is a `Personality` (base.py) that owns nothing of the execute loop but its own parts."""
