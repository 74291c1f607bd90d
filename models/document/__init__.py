"""The documents trample reads and writes: combat/1 and its assignments, read into frozen
values with a field path for every refusal; keywords, rule numbers, and what dealt
damage does (§7). Imports nothing else of trample.
"""
