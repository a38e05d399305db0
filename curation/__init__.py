"""Curation: turn source data into candidate test items and explain every rejection.

Every pipeline writes a *run directory* (written with ``biasforge.contract.rundir.write_run``) and nothing else; the later
stages read that directory, never this package's internals.
"""
