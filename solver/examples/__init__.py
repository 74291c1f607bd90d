"""Runnable examples of trample's Python API (``python -m trample.solver.examples.NAME``)."""
