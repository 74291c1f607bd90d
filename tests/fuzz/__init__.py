"""Coverage-guided fuzzing of trample's input surfaces with atheris (libFuzzer).

``python -m tests.fuzz.run --target parser|validator|serve|solve --seconds N`` from the
repository root; ``tests/test_hostile.py`` runs each target for a few seconds.
"""
