"""The best legal split: objective terms, decomposition into independent groups, the exact
fast paths (a lone source, threshold-only groups, the kills ceiling), and the CP-SAT and
HiGHS backends.
"""
